/**
 * Regression guards for the `/messages` hot path, counted rather than timed: once the validator has accepted a
 * request, later valid requests compile no schema, skip the validator's per-request chain (route lookup,
 * security alternatives, query re-parsing), walk no express router (src/http/direct-dispatch.ts) and parse
 * their JSON body exactly once; a streamed pass-through answer's message_start and message_delta are parsed
 * once each and serialised once each, and no other event of it is serialised, and the events of one upstream
 * packet reach the client without a promise per event. A refused request still goes through the whole chain,
 * and still compiles nothing. A warm key is authenticated without a promise.
 */
import { createHook } from 'node:async_hooks';
import { createRequire } from 'node:module';
import express from 'express';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

const validatorRequire = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
const ajvCompile = validatorRequire('ajv/dist/compile/index.js') as { compileSchema: (...args: unknown[]) => unknown };
const requestValidator = validatorRequire('./middlewares/openapi.request.validator') as { RequestValidator: { prototype: { validate: (...args: unknown[]) => unknown } } };
// The validator's route lookup compiles (through src/http/openapi-validator.ts's cache) one pattern per route it scans.
const routePatterns = validatorRequire('path-to-regexp') as { pathToRegexp: (...args: unknown[]) => unknown };
// Express's router, whose `handle` dispatches every request express routes (the application's, the API's).
const expressRouter = express.Router.prototype as unknown as { handle: (...args: unknown[]) => unknown };

const MESSAGE = { model: 'anthropic/claude-sonnet-4.5', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };
const REQUESTS = 12;

let upstream: FakeUpstream;
let gateway: TestGateway;
const restore: (() => void)[] = [];

/** Counts calls of `owner[name]` until the test ends. */
function count<T extends object>(owner: T, name: keyof T & string, when: (args: unknown[]) => boolean = () => true): { calls: number } {
  const counter = { calls: 0 };
  const original = owner[name] as (...args: unknown[]) => unknown;
  (owner as Record<string, unknown>)[name] = function counted(this: unknown, ...args: unknown[]) {
    if (when(args)) counter.calls += 1;
    return original.apply(this, args);
  };
  restore.push(() => {
    (owner as Record<string, unknown>)[name] = original;
  });
  return counter;
}

async function post(body: unknown, headers: Record<string, string> = { authorization: `Bearer ${gateway.api_key}` }, query = ''): Promise<number> {
  const response = await fetch(`${gateway.baseUrl}/messages${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  await response.arrayBuffer();
  return response.status;
}

/** An Anthropic stream of `deltas` text deltas, as one string the fake upstream writes in one packet. */
function streamText(deltas: number): string {
  const frame = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const usage = { input_tokens: 5, output_tokens: 1 };
  return [
    frame('message_start', { message: { id: 'msg_guard', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage } }),
    frame('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...Array.from({ length: deltas }, () => frame('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'a' } })),
    frame('content_block_stop', { index: 0 }),
    frame('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: deltas } }),
    frame('message_stop', {}),
  ].join('');
}

/**
 * The promises this process creates (gateway, upstream and client alike) for one streamed request of `deltas`
 * deltas in one packet: the fewest over `requests` requests, as the gateway's timers (record flushes, settings
 * reloads) only ever add to a request's count.
 */
async function promisesPerStream(deltas: number, requests: number): Promise<number> {
  let fewest = Infinity;
  for (let index = 0; index < requests; index += 1) {
    let promises = 0;
    const hook = createHook({
      init(_id, type) {
        if (type === 'PROMISE') promises += 1;
      },
    }).enable();
    try {
      upstream.enqueue(reply.sse([streamText(deltas)]));
      expect(await post({ ...MESSAGE, stream: true })).toBe(200);
    } finally {
      hook.disable();
    }
    fewest = Math.min(fewest, promises);
  }
  return fewest;
}

beforeAll(async () => {
  upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  gateway = await startTestGateway({ catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-shared-hot-path-0001" }\n` });
  // The first accepted request and a first refusal: whatever the validator compiles, it compiles here.
  expect(await post(MESSAGE)).toBe(200);
  expect(await post({ ...MESSAGE, max_tokens: 'many' })).toBe(400);
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});
afterEach(() => {
  for (const undo of restore.splice(0).reverse()) undo();
});

describe('the /messages hot path', () => {
  it('compiles no schema and skips the validator chain for valid requests, Bearer or x-api-key', async () => {
    const compiled = count(ajvCompile, 'compileSchema');
    const chained = count(requestValidator.RequestValidator.prototype, 'validate');
    const lookups = count(routePatterns, 'pathToRegexp');
    const routed = count(expressRouter, 'handle');
    for (let index = 0; index < REQUESTS; index += 1) {
      const headers: Record<string, string> = index % 2 === 0 ? { authorization: `Bearer ${gateway.api_key}` } : { 'x-api-key': gateway.api_key };
      expect(await post({ ...MESSAGE, max_tokens: 64 + index }, headers)).toBe(200);
    }
    expect(compiled.calls).toBe(0);
    expect(chained.calls).toBe(0);
    expect(lookups.calls).toBe(0);
    expect(routed.calls).toBe(0);
  });

  it("with Claude Code's ?beta=true, skips the route lookup and compiles nothing; the query is still validated", async () => {
    const compiled = count(ajvCompile, 'compileSchema');
    const lookups = count(routePatterns, 'pathToRegexp');
    const routed = count(expressRouter, 'handle');
    for (let index = 0; index < REQUESTS; index += 1) expect(await post(MESSAGE, undefined, '?beta=true')).toBe(200);
    expect(await post(MESSAGE, undefined, '?beta=')).toBe(200);
    expect(lookups.calls).toBe(0);
    expect(routed.calls).toBe(0);
    // An undeclared parameter is refused as before, by the validator's own request step.
    expect(await post(MESSAGE, undefined, '?beta=true&other=1')).toBe(400);
    expect(compiled.calls).toBe(0);
  });

  it('parses each request body once', async () => {
    const bodies = new Set(Array.from({ length: REQUESTS }, (_, index) => JSON.stringify({ ...MESSAGE, max_tokens: 100 + index })));
    const parsed = count(JSON, 'parse', ([text]) => typeof text === 'string' && bodies.has(text));
    for (const body of bodies) expect(await post(body)).toBe(200);
    expect(parsed.calls).toBe(REQUESTS);
  });

  it("parses a streamed pass-through answer's message_start once, and its message_delta once", async () => {
    // The passthrough (the message's id), routing (the model and id it names) and the additions each read
    // message_start; each read was a parse of its data.
    // The fake upstream parses its fixture's events too (test/helpers/fake-upstreams/fixtures.ts): not counted.
    const isEvent = (type: string) => (args: unknown[]) => typeof args[0] === 'string' && args[0].startsWith(`{"type":"${type}"`) && !new Error().stack?.includes('/fake-upstreams/');
    const starts = count(JSON, 'parse', isEvent('message_start'));
    const deltas = count(JSON, 'parse', isEvent('message_delta'));
    for (let index = 0; index < REQUESTS; index += 1) expect(await post({ ...MESSAGE, stream: true })).toBe(200);
    expect(starts.calls).toBe(REQUESTS);
    expect(deltas.calls).toBe(REQUESTS);
  });

  it("serialises a streamed pass-through answer's amended message_start and message_delta once each, and no other event", async () => {
    // The additions amend these two as objects and the SSE writer serialises each once (about 15 k instructions
    // a stream, bench/JOURNAL.md); every other event goes out as the upstream's bytes, never serialised.
    const typeOf = (value: unknown) => (typeof value === 'object' && value !== null && !new Error().stack?.includes('/fake-upstreams/') ? (value as { type?: unknown }).type : undefined);
    const serialised = new Map<unknown, number>();
    count(JSON, 'stringify', ([value]) => {
      const type = typeOf(value);
      if (typeof type === 'string' && /^(message|content_block)_/.test(type)) serialised.set(type, (serialised.get(type) ?? 0) + 1);
      return false;
    });
    for (let index = 0; index < REQUESTS; index += 1) expect(await post({ ...MESSAGE, stream: true })).toBe(200);
    expect(Object.fromEntries(serialised)).toEqual({ message_start: REQUESTS, message_delta: REQUESTS });
  });

  it('hands the events of one upstream packet to the client without a promise per event', async () => {
    // Every layer the events pass (the started stream, the stages, the refusal splice, the writer's loop) takes
    // what the packet holds synchronously (`nextReady`); an async generator in the chain cost promises and
    // microtask turns per event on every stream (bench/JOURNAL.md, 2026-11-28). Twenty more deltas in the same
    // packet cost no promise each (they cost 10 each through the generators): allow some for the longer bodies' reads.
    await promisesPerStream(1, 3);
    const few = await promisesPerStream(1, 8);
    const many = await promisesPerStream(21, 8);
    expect(many - few).toBeLessThan(20);
  });

  it('authenticates a warm key without a promise, Bearer or x-api-key', async () => {
    // A key the cache knows is answered at once (src/keys/key-authenticator.ts), and the request goes on in the
    // same turn: no async function, promise or microtask of the authentication (three async layers and a
    // `then` per request before). A promise's creation runs the hook in its creator's frame.
    const creators: string[] = [];
    const hook = createHook({
      init(_id, type) {
        if (type !== 'PROMISE') return;
        const stack = new Error().stack ?? '';
        if (/src\/(?:http\/authenticate|keys\/key-authenticator)\.ts/.test(stack)) creators.push(stack);
      },
    }).enable();
    try {
      for (let index = 0; index < REQUESTS; index += 1) {
        const headers: Record<string, string> = index % 2 === 0 ? { authorization: `Bearer ${gateway.api_key}` } : { 'x-api-key': gateway.api_key };
        expect(await post(MESSAGE, headers)).toBe(200);
      }
    } finally {
      hook.disable();
    }
    expect(creators).toEqual([]);
  });

  it('sends refusals through the whole validator chain, without compiling anything', async () => {
    const compiled = count(ajvCompile, 'compileSchema');
    const chained = count(requestValidator.RequestValidator.prototype, 'validate');
    expect(await post({ ...MESSAGE, max_tokens: 'many' })).toBe(400);
    expect(await post({ ...MESSAGE, messages: 'Hello' })).toBe(400);
    expect(await post(MESSAGE, { authorization: 'Bearer sb-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })).toBe(401);
    // Refused by authentication before validation: the chain stops at its security step.
    expect(chained.calls).toBe(2);
    expect(compiled.calls).toBe(0);
  });
});
