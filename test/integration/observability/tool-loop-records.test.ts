/**
 * The generation record of a server-side tool loop, read back over HTTP with `GET /generations/{id}`: every
 * step as the answer's `gateway_metadata.steps` lists it, tokens and cost summed over the steps; and a loop
 * that fails in its second step still records the first step, its tokens and its cost (what the key was
 * charged), JSON and stream alike.
 */
import { describe, expect, it } from 'vitest';
import { anthropicStep, reply, type ScriptedStep } from '#test/helpers/fake-upstreams/index.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import { generationOf } from './observability-support.ts';
import { loopBody, useLoopGateway } from '#test/integration/server-tools/loop/loop-support.ts';

const setup = useLoopGateway();
const DATETIME = { type: 'gateway:datetime' };
// On test/claude ($3 in, $15 out per million): 1000 x 3 + 100 x 15 = 4500 micro-dollars, then 3600 + 150.
const TOOL_STEP: ScriptedStep = { text: 'Checking.', calls: [{ name: 'datetime', input: { timezone: 'UTC' } }], usage: { input: 1000, output: 100 } };
const ANSWER: ScriptedStep = { text: 'It is noon.', usage: { input: 1200, output: 10 } };
const ONLY_ALPHA = { provider: { order: ['alpha'], allow_fallbacks: false } };

/** Sends a loop request as the client would, and returns its generation id, status and what it read. */
async function send(stream: boolean): Promise<{ id: string; status: number; body: string }> {
  const response = await fetch(`${setup.gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${setup.gateway.api_key}`, 'content-type': 'application/json', 'x-gateway-metadata': 'enabled' },
    body: JSON.stringify(loopBody('test/claude', [DATETIME], { ...ONLY_ALPHA, stream })),
  });
  let body = '';
  if (stream && response.status === 200) {
    for await (const event of readSseEvents(response.body as ReadableStream<Uint8Array>)) body += `${event.event}\n${event.data}\n`;
  } else {
    body = await response.text();
  }
  return { id: response.headers.get('request-id') ?? '', status: response.status, body };
}

describe.each([false, true])('the record of a tool loop (stream: %s)', (stream) => {
  it('lists each step as gateway_metadata.steps does, with tokens and cost summed over the steps', async () => {
    setup.alpha.enqueue(anthropicStep(TOOL_STEP), anthropicStep(ANSWER));
    const sent = await send(stream);
    expect(sent.status, sent.body).toBe(200);
    const record = await generationOf(setup.gateway, sent.id);

    expect(record.status).toBe('success');
    expect(record.tool_steps).toHaveLength(2);
    expect(record.tool_steps[0]).toMatchObject({ step: 1, model: 'test/claude', provider: 'Alpha Cloud', stop_reason: 'tool_use', tools_called: ['datetime'], cost: 0.0045 });
    expect(record.tool_steps[1]).toMatchObject({ step: 2, stop_reason: 'end_turn', tools_called: [], usage: { input_tokens: 1200, output_tokens: 10 } });
    expect(record.tool_steps[1].cost).toBeCloseTo(0.00375, 12);
    expect(record.usage).toMatchObject({ input_tokens: 2200, output_tokens: 110 });
    expect(record.cost).toBeCloseTo(0.00825, 12);
    // The same steps the client was shown.
    const lastJson = stream ? sent.body.trim().split('\n').at(-1) ?? '{}' : sent.body;
    expect((JSON.parse(lastJson) as { gateway_metadata: { steps: unknown } }).gateway_metadata.steps).toEqual(record.tool_steps);
  });

  it('a loop failing in its second step records the first: its tokens, its cost, the failure', async () => {
    setup.alpha.enqueue(anthropicStep(TOOL_STEP), reply.error(500));
    const sent = await send(stream);
    // JSON: the error answer; a stream had started with the first step, so it ends with an in-band error.
    if (stream) {
      expect(sent.status).toBe(200);
      expect(sent.body.split('\n')).toContain('error');
    } else {
      expect(sent.status).toBeGreaterThanOrEqual(500);
    }
    const record = await generationOf(setup.gateway, sent.id);

    expect(record.status).toBe('error');
    expect(record.tool_steps).toEqual([expect.objectContaining({ step: 1, tools_called: ['datetime'], cost: 0.0045 })]);
    expect(record.usage).toMatchObject({ input_tokens: 1000, output_tokens: 100 });
    expect(record.cost).toBe(0.0045);
    expect(record.attempts.map((attempt: { status: string }) => attempt.status)).toEqual(['success', expect.not.stringMatching(/^success$/)]);
  });
});
