/**
 * Over HTTP: a value of a union (a stop condition, a plugin entry, a gateway tool, a content block) that the
 * spec refuses is told what is wrong with the alternative its `type` (or `id`) chose, in the details and in the
 * message, not with the first alternative of the spec or with every other one. Nothing reaches an upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { checkResponse } from '#test/helpers/spec-validator.ts';
import { errorMessage, messageBody, postMessage } from '#test/integration/routing/routing-support.ts';

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeAnthropic();
  gateway = await startTestGateway({ catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-shared-unions-0001" }\n` });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const MODEL = 'anthropic/claude-sonnet-4.5';
const LOOP = { tools: [{ type: 'gateway:datetime' }] };
const MESSAGE = 'Invalid request parameters: ';

const CASES = [
  {
    name: 'a max_cost condition without max_cost_in_dollars',
    extra: { ...LOOP, stop_server_tools_when: [{ type: 'max_cost' }] },
    details: [{ path: '/body/stop_server_tools_when/0/max_cost_in_dollars', message: "must have required property 'max_cost_in_dollars'" }],
    reason: "stop_server_tools_when[0] (type max_cost) must have required property 'max_cost_in_dollars'",
  },
  {
    name: 'a max_cost condition with a negative max_cost_in_dollars',
    extra: { ...LOOP, stop_server_tools_when: [{ type: 'max_cost', max_cost_in_dollars: -1 }] },
    details: [{ path: '/body/stop_server_tools_when/0/max_cost_in_dollars', message: 'must be > 0' }],
    reason: 'stop_server_tools_when[0].max_cost_in_dollars must be > 0',
  },
  {
    name: 'a max_cost condition whose max_cost_in_dollars is text',
    extra: { ...LOOP, stop_server_tools_when: [{ type: 'step_count_is', step_count: 3 }, { type: 'max_cost', max_cost_in_dollars: '0.5' }] },
    details: [{ path: '/body/stop_server_tools_when/1/max_cost_in_dollars', message: 'must be number' }],
    reason: 'stop_server_tools_when[1].max_cost_in_dollars must be number',
  },
  {
    name: 'a has_tool_call condition whose tool_name is a number',
    extra: { ...LOOP, stop_server_tools_when: [{ type: 'has_tool_call', tool_name: 7 }] },
    details: [{ path: '/body/stop_server_tools_when/0/tool_name', message: 'must be string' }],
    reason: 'stop_server_tools_when[0].tool_name must be string',
  },
  {
    name: 'an auto-router plugin whose allowed_models is not a list',
    extra: { plugins: [{ id: 'auto-router', allowed_models: 'anthropic/*' }] },
    details: [{ path: '/body/plugins/0/allowed_models', message: 'must be array' }],
    reason: 'plugins[0].allowed_models must be array',
  },
  {
    name: 'a gateway:mcp tool without its server',
    extra: { tools: [{ type: 'gateway:mcp' }] },
    details: [{ path: '/body/tools/0/server', message: "must have required property 'server'" }],
    reason: "tools[0] (type gateway:mcp) must have required property 'server'",
  },
  {
    name: 'an image block whose url source lacks the url',
    extra: { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url' } }] }] },
    details: [{ path: '/body/messages/0/content/0/source/url', message: "must have required property 'url'" }],
    reason: "messages[0].content[0].source (type url) must have required property 'url'",
  },
];

describe('a union value is told about the alternative it chose', () => {
  it.each(CASES)('$name', async ({ extra, details, reason }) => {
    const call = await postMessage(gateway, messageBody(MODEL, extra));
    expect(call.status, JSON.stringify(call.body)).toBe(400);
    expect(checkResponse({ path: '/messages', method: 'post', status: 400, contentType: 'application/json', body: call.body }).errors).toEqual([]);
    expect(call.body.error).toMatchObject({ type: 'invalid_request_error', details: { error_code: 'invalid_request_parameters', parameters: details } });
    expect(errorMessage(call)).toBe(`${MESSAGE}${reason}`);
    expect(upstream.requests).toHaveLength(0);
  });

  it('count_tokens is told the same', async () => {
    const response = await fetch(`${gateway.baseUrl}/messages/count_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], ...LOOP, stop_server_tools_when: [{ type: 'max_cost' }] }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; details: unknown } };
    expect(body.error.message).toBe(`${MESSAGE}stop_server_tools_when[0] (type max_cost) must have required property 'max_cost_in_dollars'`);
    expect(body.error.details).toEqual({
      error_code: 'invalid_request_parameters',
      parameters: [{ path: '/body/stop_server_tools_when/0/max_cost_in_dollars', message: "must have required property 'max_cost_in_dollars'" }],
    });
  });

  it('an unknown type still names the type, and a value naming no alternative is told its tag is missing', async () => {
    const unknown = await postMessage(gateway, messageBody(MODEL, { ...LOOP, stop_server_tools_when: [{ type: 'when_bored' }] }));
    expect(unknown.status).toBe(400);
    expect(errorMessage(unknown)).toContain('stop_server_tools_when[0].type: unknown stop condition type "when_bored"');

    const untyped = await postMessage(gateway, messageBody(MODEL, { ...LOOP, stop_server_tools_when: [{ step_count: 2 }] }));
    expect(untyped.status).toBe(400);
    expect(errorMessage(untyped)).toBe('Invalid request parameters: stop_server_tools_when[0].type: is required');
    expect(upstream.requests).toHaveLength(0);
  });
});
