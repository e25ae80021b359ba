/**
 * Every `/messages` request leaves a generation record, readable over HTTP with a management key: JSON, stream,
 * failover and failure, each with exact tokens and cost (equal to what the client was told), timing, outcome,
 * attempts, session, user and trace fields. Prompts and completions only when the workspace opts in.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { ALPHA_FIRST, eventPayload, messageBody, postMessage, streamMessage } from '#test/integration/routing/routing-support.ts';
import { costOf, generationOf, startRecordsGateway, type RecordsGateway } from './observability-support.ts';

let setup: RecordsGateway;

beforeAll(async () => {
  setup = await startRecordsGateway();
});
afterAll(async () => {
  await setup?.close();
});
beforeEach(() => {
  setup.alpha.clear();
  setup.beta.clear();
});

/** The record of `id` once the stream's end has been observed (the gateway notices a gone client at its next event). */
async function waitForRecordedStatus(id: string): Promise<Awaited<ReturnType<typeof generationOf>>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await setup.gateway.server.flushRecords();
    const response = await callApi(setup.gateway.baseUrl, 'GET', `/generations/${id}`, { key: setup.gateway.management_key });
    if (response.status === 200) return response.body.data as Awaited<ReturnType<typeof generationOf>>;
    if (Date.now() > deadline) throw new Error(`generation ${id} was not recorded`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('generation records', () => {
  it('a JSON answer: tokens and cost exactly as answered, the serving provider, timing, session, user and trace', async () => {
    setup.alpha.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(
      setup.gateway,
      messageBody('test/primary', { ...ALPHA_FIRST, user: 'user-42', session_id: 'conversation-7', trace: { trace_name: 'support', ticket: 'T-1' } }),
    );
    expect(call.status).toBe(200);
    const id = call.headers.get('x-generation-id') ?? '';
    const record = await generationOf(setup.gateway, id);
    const usage = call.body.usage as Record<string, number>;

    expect(record).toMatchObject({
      id,
      workspace_id: setup.gateway.workspace_id,
      key_hash: setup.gateway.api_key_hash,
      requested_model: 'test/primary',
      model: 'test/primary',
      provider: 'alpha',
      provider_name: 'Alpha Cloud',
      is_byok: false,
      stream: false,
      status: 'success',
      http_status: 200,
      stop_reason: 'end_turn',
      error: null,
      usage: { input_tokens: 12, output_tokens: 29, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, reasoning_tokens: 0 },
      session_id: 'conversation-7',
      user: 'user-42',
      trace: { trace_name: 'support', ticket: 'T-1' },
      attempts: [{ provider: 'Alpha Cloud', model: 'test/primary', status: 'success', http_status: 200, is_byok: false }],
      tool_steps: null,
    });
    expect(record.cost).toBe(usage.cost);
    expect(record.cost).toBeCloseTo(costOf(12, 29), 15);
    expect(record.total_ms).toBeGreaterThanOrEqual(0);
    expect(record.time_to_first_byte_ms).toBe(record.total_ms);
    expect(Date.parse(record.created_at)).toBeLessThanOrEqual(Date.now());
    // Content is not stored by default.
    expect(record).not.toHaveProperty('prompt');
    expect(record).not.toHaveProperty('completion');
  });

  it('a stream: the usage of message_start and message_delta, its cost, and the time to its first byte', async () => {
    setup.alpha.enqueue(reply.fixture('anthropic-text'));
    const call = await streamMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST), { 'x-session-id': 'header-session' });
    expect(call.status).toBe(200);
    const delta = eventPayload(call, 'message_delta') as { usage: { cost: number } };
    const record = await generationOf(setup.gateway, call.headers.get('x-generation-id') ?? '');

    expect(record).toMatchObject({ stream: true, status: 'success', stop_reason: 'end_turn', provider: 'alpha', session_id: 'header-session' });
    expect(record.usage).toEqual({ input_tokens: 12, output_tokens: 30, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, reasoning_tokens: 0 });
    expect(record.cost).toBe(delta.usage.cost);
    expect(record.cost).toBeCloseTo(costOf(12, 30), 15);
    expect(record.time_to_first_byte_ms).toBeGreaterThanOrEqual(0);
    expect(record.time_to_first_byte_ms).toBeLessThanOrEqual(record.total_ms);
  });

  it("reasoning tokens as Anthropic reports them (usage.output_tokens_details.thinking_tokens), passed on and recorded", async () => {
    setup.alpha.enqueue(reply.fixture('anthropic-claude-opus-5-reasoning-high.1'));
    const call = await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));
    expect(call.status).toBe(200);
    expect((call.body.usage as { output_tokens_details?: unknown }).output_tokens_details).toEqual({ thinking_tokens: 139 });
    const record = await generationOf(setup.gateway, call.headers.get('x-generation-id') ?? '');
    expect(record.usage).toMatchObject({ input_tokens: 51, output_tokens: 1699, reasoning_tokens: 139 });
  });

  it('a failover: both attempts, the failed one with its class, the answer from the second provider', async () => {
    setup.alpha.enqueue(reply.error(529));
    setup.beta.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));
    expect(call.status).toBe(200);
    const record = await generationOf(setup.gateway, call.headers.get('x-generation-id') ?? '');

    expect(record).toMatchObject({ status: 'success', provider: 'beta', provider_name: 'Beta Cloud', cost: (call.body.usage as { cost: number }).cost });
    expect(record.attempts.map((attempt: Record<string, unknown>) => [attempt.provider, attempt.status, attempt.http_status])).toEqual([
      ['Alpha Cloud', 'overloaded', 529],
      ['Beta Cloud', 'success', 200],
    ]);
  });

  it('a failure: the status the client got, the error class and message, every attempt, no usage', async () => {
    setup.alpha.enqueue(reply.error(529));
    setup.beta.enqueue(reply.error(529));
    const call = await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));
    expect(call.status).toBe(529);
    const record = await generationOf(setup.gateway, call.headers.get('x-generation-id') ?? '');

    expect(record).toMatchObject({
      status: 'error',
      http_status: 529,
      model: null,
      provider: null,
      cost: 0,
      usage: { input_tokens: 0, output_tokens: 0 },
      time_to_first_byte_ms: null,
      error: { type: 'AllAttemptsFailedError', message: (call.body.error as { message: string }).message },
    });
    expect(record.attempts.map((attempt: Record<string, unknown>) => attempt.status)).toEqual(['overloaded', 'overloaded']);
  });

  it('a stream the client leaves mid-way is a cancelled record charged its input, not a success', async () => {
    // Events 40 ms apart: the client is gone well before the upstream's last one.
    setup.alpha.enqueue(reply.fixture('anthropic-text', { chunkDelayMs: 40 }));
    const aborter = new AbortController();
    const response = await fetch(`${setup.gateway.baseUrl}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${setup.gateway.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...messageBody('test/primary', ALPHA_FIRST), stream: true }),
      signal: aborter.signal,
    });
    const reader = response.body?.getReader();
    expect((await reader?.read())?.done).toBe(false);
    aborter.abort();
    const record = await waitForRecordedStatus(response.headers.get('x-generation-id') ?? '');
    expect(record).toMatchObject({ stream: true, status: 'cancelled', http_status: 200, provider: 'alpha' });
    expect(record.error).toMatchObject({ type: 'ClientDisconnected' });
    // Charged what the upstream reported before the client left (message_start: the input), at its prices.
    expect(record.usage.input_tokens).toBe(12);
    expect(record.cost).toBeGreaterThan(0);
    expect(record.cost).toBeCloseTo(costOf(12, record.usage.output_tokens), 15);
  });

  it('a stream that fails after its first byte is an error record with the in-band message', async () => {
    setup.alpha.enqueue(reply.fixture('anthropic-text', { streamError: { afterEvents: 3, status: 529 } }));
    const call = await streamMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));
    expect(call.events.at(-1)?.event).toBe('error');
    const record = await generationOf(setup.gateway, call.headers.get('x-generation-id') ?? '');
    expect(record).toMatchObject({ stream: true, status: 'error', http_status: 200, provider: 'alpha' });
    expect(record.error.type).toMatch(/^UpstreamError:/);
    // The attempt that served the first events failed after them: its status says how, as routing heard it.
    expect(record.attempts).toEqual([expect.objectContaining({ provider: 'Alpha Cloud', status: 'overloaded', http_status: 200 })]);
  });

  it('stores the prompt and completion once the workspace opts in, for its retention period', async () => {
    const settings = await callApi(setup.gateway.baseUrl, 'PATCH', '/workspace/settings', { key: setup.gateway.management_key, body: { store_content: true, content_retention_days: 7 } });
    expect(settings.status).toBe(200);
    expect(settings.body.data).toMatchObject({ store_content: true, content_retention_days: 7, workspace_id: setup.gateway.workspace_id });
    try {
      setup.alpha.enqueue(reply.fixture('anthropic-text'), reply.fixture('anthropic-text'));
      const json = await postMessage(setup.gateway, messageBody('test/primary', { ...ALPHA_FIRST, system: 'Be brief.' }));
      const stream = await streamMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));
      const jsonRecord = await generationOf(setup.gateway, json.headers.get('x-generation-id') ?? '');
      const streamRecord = await generationOf(setup.gateway, stream.headers.get('x-generation-id') ?? '');

      expect(jsonRecord.prompt).toEqual({ system: 'Be brief.', messages: [{ role: 'user', content: 'Hello there' }] });
      expect(jsonRecord.completion).toEqual(json.body.content);
      expect(streamRecord.completion).toEqual([{ type: 'text', text: expect.stringContaining('Hello') }]);
      // The list never carries content.
      const listed = await callApi(setup.gateway.baseUrl, 'GET', '/generations?limit=1', { key: setup.gateway.management_key });
      expect(listed.body.data[0]).not.toHaveProperty('prompt');
    } finally {
      await callApi(setup.gateway.baseUrl, 'PATCH', '/workspace/settings', { key: setup.gateway.management_key, body: { store_content: false } });
    }
  });
});
