/**
 * Over HTTP: a tool loop cut short is charged every model call its upstream answered. A step's model call
 * is answered before its gateway tools run, so a loop the client leaves (or whose time budget runs out) while
 * those tools run is charged that step, in its generation record (`cost`, `tool_steps`) and against its key;
 * a streamed loop the client leaves during a later step's answer is charged what that step's upstream
 * reported before (its `message_start`: the input), as a plain stream the client leaves is.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { anthropicStep, openAiChatStep } from '#test/helpers/fake-upstreams/index.ts';
import type { Route } from '#test/helpers/fake-tool-servers/fake-web-server.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import { issueLimitedKey, listedKey } from '#test/integration/limits/limits-support.ts';
import { askingToRead, loopBody, PRICES, useLoopGateway } from './loop-support.ts';
import { priceOf } from '#test/helpers/token-price.ts';

/** A page that never answers; resolves `arrived` when a request reaches it. */
function slowPage(): { route: Route; arrived(): Promise<void> } {
  const waiting: (() => void)[] = [];
  return {
    route: (_req: IncomingMessage) => waiting.shift()?.(),
    arrived: () => new Promise<void>((resolve) => waiting.push(resolve)),
  };
}

const page = slowPage();
// Pings every 100 ms while tools run: a client that leaves meets the loop at one of them.
const setup = useLoopGateway({ webRoutes: { '/slow': page.route }, env: { SWITCHBOARD_RECORD_FLUSH_MS: '50', SWITCHBOARD_TOOL_LOOP_PING_MS: '100' } });
const ALPHA = { provider: { order: ['alpha'] } };
// On test/claude ($3 in, $15 out per million): 1000 x 3 + 100 x 15 = 4500 micro-dollars.
const STEP_COST = priceOf(1000, 100, PRICES.claude);

/** The one generation record of the requests that carried `user`, once written. */
async function recordOf(user: string): Promise<Record<string, any>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    await setup.gateway.server.flushRecords();
    const response = await callApi(setup.gateway.baseUrl, 'GET', `/generations?user=${user}`, { key: setup.gateway.management_key });
    expect(response.status).toBe(200);
    const [record] = response.body.data as Record<string, any>[];
    if (record) return record;
    if (Date.now() > deadline) throw new Error(`no generation record for ${user}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function post(key: string, body: Record<string, unknown>, signal: AbortSignal): Promise<Response> {
  return fetch(`${setup.gateway.baseUrl}/messages`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
}

describe.each([false, true])('a loop the client leaves while a step\'s gateway tool runs (stream: %s)', (stream) => {
  it('is charged that step: in its record and against its key', async () => {
    const issued = await issueLimitedKey(setup.gateway, { limit: 10 });
    const user = `left-during-tools-${String(stream)}`;
    setup.alpha.enqueue(
      anthropicStep({ text: 'Reading it.', calls: [{ name: 'web_fetch', input: { url: `${setup.web.origin}/slow` } }], usage: { input: 1000, output: 100 } }),
      anthropicStep({ text: 'never asked for', usage: { input: 10, output: 5 } }),
    );
    const arrived = page.arrived();
    const client = new AbortController();
    const body = loopBody('test/claude', [{ type: 'gateway:web_fetch' }], { ...ALPHA, ...askingToRead(`${setup.web.origin}/slow`), stream, user });
    const answer = post(issued.key, body, client.signal).then(async (response) => {
      for await (const _chunk of response.body ?? []) void _chunk;
    });
    await arrived;
    client.abort();
    await answer.catch(() => undefined);

    const record = await recordOf(user);
    expect(record).toMatchObject({ status: 'cancelled', usage: { input_tokens: 1000, output_tokens: 100 } });
    expect(record.tool_steps).toEqual([expect.objectContaining({ step: 1, tools_called: ['web_fetch'] })]);
    expect(record.cost).toBeCloseTo(STEP_COST, 12);
    expect((await listedKey(setup.gateway, issued.hash)).usage.cost).toBeCloseTo(STEP_COST, 12);
    expect(setup.alpha.requests).toHaveLength(1);
  });
});

describe('a streamed loop the client leaves during a later step\'s answer', () => {
  it('is charged the finished steps and the input the later step\'s upstream reported', async () => {
    const issued = await issueLimitedKey(setup.gateway, { limit: 10 });
    const user = 'left-during-step-2';
    setup.alpha.enqueue(
      anthropicStep({ text: 'Checking.', calls: [{ name: 'datetime', input: {} }], usage: { input: 1000, output: 100 } }),
      // message_start, ping, the text block's start and first delta, then nothing more.
      anthropicStep({ text: 'It is noon in Paris, and a long answer follows.', usage: { input: 5000, output: 200 } }, { stallAfterEvents: 4 }),
    );
    const client = new AbortController();
    const response = await post(issued.key, loopBody('test/claude', [{ type: 'gateway:datetime' }], { ...ALPHA, stream: true, user }), client.signal);
    for await (const event of readSseEvents(response.body as ReadableStream<Uint8Array>)) {
      // The final answer's text has begun (block 3, after text, server_tool_use and the result).
      if (event.event === 'content_block_delta' && (JSON.parse(event.data) as { index: number }).index === 3) break;
    }
    client.abort();

    const record = await recordOf(user);
    // Step 2's message_start reported its input and one output token.
    const expected = STEP_COST + priceOf(5000, 1, PRICES.claude);
    expect(record.status).toBe('cancelled');
    expect(record.tool_steps).toEqual([expect.objectContaining({ step: 1 })]);
    expect(record.usage).toMatchObject({ input_tokens: 6000, output_tokens: 101 });
    expect(record.cost).toBeCloseTo(expected, 12);
    expect((await listedKey(setup.gateway, issued.hash)).usage.cost).toBeCloseTo(expected, 12);
  });
});

describe('a streamed loop on a translated vendor the client leaves during a later step\'s answer', () => {
  it('is charged the finished steps and the estimated input of the later step\'s request', async () => {
    const user = 'left-during-step-2-openai';
    setup.openai.enqueue(
      openAiChatStep({ text: 'Checking.', calls: [{ name: 'datetime', input: {} }], usage: { input: 1000, output: 100 } }),
      // The role chunk and the first piece of text, then nothing more: Chat Completions counts come at the end.
      openAiChatStep({ text: 'It is noon in Paris, and a long answer follows.', usage: { input: 5000, output: 200 } }, { stallAfterEvents: 2 }),
    );
    const client = new AbortController();
    const response = await post(setup.gateway.api_key, loopBody('test/gpt', [{ type: 'gateway:datetime' }], { stream: true, user }), client.signal);
    for await (const event of readSseEvents(response.body as ReadableStream<Uint8Array>)) {
      if (event.event === 'content_block_delta' && (JSON.parse(event.data) as { index: number }).index === 3) break;
    }
    client.abort();

    const record = await recordOf(user);
    expect(record).toMatchObject({ status: 'cancelled', usage_estimated: true });
    expect(record.tool_steps).toEqual([expect.objectContaining({ step: 1 })]);
    // Step 2's request holds the question, step 1's call and its result: estimated at more than a few tokens.
    const estimated = record.usage.input_tokens - 1000;
    expect(estimated).toBeGreaterThan(20);
    expect(record.cost).toBeCloseTo(priceOf(record.usage.input_tokens, record.usage.output_tokens, PRICES.gpt), 12);
  });
});
