/**
 * Over HTTP: what a client can get wrong about the tool loop is a 400 in the spec's error shape naming the
 * field, before any upstream or tool is called: an unknown gateway tool, an empty condition array, a condition
 * of unknown type, a negative count, a gateway tool whose name collides with a client tool's, a `has_tool_call`
 * naming no tool of the request. A request without gateway tools ignores the loop's fields.
 */
import { describe, expect, it } from 'vitest';
import { anthropicStep } from '#test/helpers/fake-upstreams/index.ts';
import { errorMessage, postMessage } from '#test/integration/routing/routing-support.ts';
import { bodyOf, loopBody, useLoopGateway } from './loop-support.ts';

const setup = useLoopGateway();
const DATETIME = { type: 'gateway:datetime' };
const WEATHER = { name: 'weather', input_schema: { type: 'object' } };

describe('bad input is a 400 naming the field', () => {
  it.each([
    ['an unknown gateway tool', { tools: [{ type: 'gateway:code_execution' }] }, '/body/tools/0/type', 'tools[0].type: unknown gateway tool gateway:code_execution'],
    ['an empty condition array', { stop_server_tools_when: [] }, '/body/stop_server_tools_when', undefined],
    ['a condition of unknown type', { stop_server_tools_when: [{ type: 'step_count_is', step_count: 2 }, { type: 'when_bored' }] }, '/body/stop_server_tools_when/1/type', 'stop_server_tools_when[1].type: unknown stop condition type "when_bored"'],
    ['a negative max_tool_calls', { max_tool_calls: -1 }, '/body/max_tool_calls', undefined],
    ['a step count below 1', { stop_server_tools_when: [{ type: 'step_count_is', step_count: -2 }] }, '/body/stop_server_tools_when/0/step_count', undefined],
    ['a negative token count', { stop_server_tools_when: [{ type: 'max_tokens_used', max_tokens: -5 }] }, '/body/stop_server_tools_when/0/max_tokens', undefined],
    ['a negative cost', { stop_server_tools_when: [{ type: 'max_cost', max_cost_in_dollars: -0.5 }] }, '/body/stop_server_tools_when/0/max_cost_in_dollars', undefined],
    ['a gateway tool named like a client tool', { tools: [{ ...DATETIME, name: 'weather' }, WEATHER] }, '/body/tools/0/name', 'tools[0].name: the model-facing name weather is already the name of tools[1]'],
    ['a gateway tool whose default name is a client tool\'s', { tools: [{ name: 'datetime', input_schema: { type: 'object' } }, DATETIME] }, '/body/tools/1/type', 'tools[1].type: the model-facing name datetime is already the name of tools[0]'],
    ['has_tool_call naming no tool of the request', { stop_server_tools_when: [{ type: 'has_tool_call', tool_name: 'web_search' }] }, '/body/stop_server_tools_when/0/tool_name', 'stop_server_tools_when[0].tool_name: no tool of the request is named "web_search"'],
  ])('%s', async (_name, extra, path, message) => {
    const call = await postMessage(setup.gateway, loopBody('test/claude', [DATETIME], extra));
    expect(call.status, JSON.stringify(call.body)).toBe(400);
    expect(call.body.error).toMatchObject({ type: 'invalid_request_error' });
    const details = (call.body.error as { details?: { error_code: string; parameters: { path: string }[] } }).details;
    expect(details?.error_code).toBe('invalid_request_parameters');
    expect(details?.parameters.map((detail) => detail.path)).toContain(path);
    if (message) expect(errorMessage(call)).toContain(message);
    expect(setup.alpha.requests).toHaveLength(0);
    expect(setup.beta.requests).toHaveLength(0);
  });

  it('the same checks for count_tokens', async () => {
    const response = await fetch(`${setup.gateway.baseUrl}/messages/count_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${setup.gateway.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'test/claude', messages: [{ role: 'user', content: 'Hi' }], tools: [{ type: 'gateway:teleport' }] }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('tools[0].type: unknown gateway tool gateway:teleport');
  });
});

describe('the loop fields without gateway tools', () => {
  it('a condition of unknown type is still a 400', async () => {
    const call = await postMessage(setup.gateway, loopBody('test/claude', [WEATHER], { stop_server_tools_when: [{ type: 'when_bored' }] }));
    expect(call.status).toBe(400);
    expect(errorMessage(call)).toContain('stop_server_tools_when[0].type: unknown stop condition type "when_bored"');
    expect(setup.alpha.requests).toHaveLength(0);
  });

  it('are accepted and ignored: the request takes the plain path and none reaches the upstream', async () => {
    setup.alpha.enqueue(anthropicStep({ text: 'Hello.', usage: { input: 5, output: 2 } }));
    const call = await postMessage(setup.gateway, loopBody('test/claude', [WEATHER], { provider: { order: ['alpha'] }, max_tool_calls: 3, stop_server_tools_when: [{ type: 'step_count_is', step_count: 1 }] }));
    expect(call.status).toBe(200);
    const sent = bodyOf(setup.alpha.lastRequest());
    expect(sent.max_tool_calls).toBeUndefined();
    expect(sent.stop_server_tools_when).toBeUndefined();
    expect(sent.tools).toEqual([WEATHER]);
  });
});

describe('count_tokens with gateway tools', () => {
  it('counts with the tools the model is offered', async () => {
    const response = await fetch(`${setup.gateway.baseUrl}/messages/count_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${setup.gateway.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'test/claude', provider: { order: ['alpha'] }, messages: [{ role: 'user', content: 'Hi' }], tools: [DATETIME, WEATHER], max_tool_calls: 2 }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ input_tokens: 12 });
    const sent = bodyOf(setup.alpha.lastRequest());
    expect(setup.alpha.lastRequest().path).toBe('/v1/messages/count_tokens');
    expect(sent.tools).toEqual([expect.objectContaining({ name: 'datetime', description: expect.any(String), input_schema: expect.objectContaining({ type: 'object' }) }), WEATHER]);
    expect(JSON.stringify(sent)).not.toContain('gateway:');
    expect(sent.max_tool_calls).toBeUndefined();
  });
});
