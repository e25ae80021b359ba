/**
 * Refusals moved on from are charged whatever follows them, over HTTP: a streaming client that leaves while the
 * serving model's stream is under way (the refused call on the record and the key's spending, at its prices, and
 * the serving call what its message_start announced, at its own), a JSON request whose next attempt fails with
 * a request error (a 400: the answer is the error, the refused call is billed all the same), and the refused
 * attempt's OTLP span carrying the `gen_ai.usage.*` of what it reported (the export decoded as a collector
 * would). `test/main` refuses at $1/$2 per million tokens, `test/backup` answers at $3/$4.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, reply } from '#test/helpers/fake-upstreams/index.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { decodeTraceExport, type DecodedSpan } from '#test/helpers/otlp-decode.ts';
import { generationOf, waitForGeneration } from '#test/integration/observability/observability-support.ts';
import { issueLimitedKey, listedKey } from '#test/integration/limits/limits-support.ts';
import { fallbackRequest, micro, REFUSED_COST, refusalStep, startRefusalGateway, type RefusalGateway } from '#test/integration/routing/refusal-support.ts';

const SPAN_KIND_CLIENT = 3;

let setup: RefusalGateway;
let collector: CaptureServer;

beforeAll(async () => {
  collector = await startCaptureServer({ status: 200, body: {} });
  setup = await startRefusalGateway({ env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
  const created = await callApi(setup.gateway.baseUrl, 'POST', '/observability/destinations', { key: setup.gateway.management_key, body: { name: 'otlp', kind: 'otlp', endpoint: `${collector.url}/v1/traces`, protocol: 'http/protobuf' } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
}, 60_000);

afterAll(async () => {
  await setup?.close();
  await collector?.close();
});

beforeEach(() => setup.clear());

/** Polls until `read` passes (records and the key's spending settle after the response). */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => void): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    try {
      check(value);
      return value;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe('a stream the client leaves while the serving model answers after a refusal', () => {
  it('charges the refused call at its prices and the serving call what its message_start announced, at its own', async () => {
    const issued = await issueLimitedKey(setup.gateway, { limit: 10 });
    setup.refusing.enqueue(refusalStep());
    // message_start (60 in, 1 out), ping, the text block's start and first delta, then nothing more.
    setup.serving.enqueue(anthropicStep({ text: 'Port scanners probe hosts for open ports.', usage: { input: 60, output: 6 } }, { stallAfterEvents: 4 }));
    const aborter = new AbortController();
    const response = await fetch(`${setup.gateway.origin}/api/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${issued.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(fallbackRequest({ stream: true })),
      signal: aborter.signal,
    });
    expect(response.status).toBe(200);
    const id = response.headers.get('x-generation-id') ?? '';
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    // Read until the serving model's text arrives after the fallback block, then leave.
    while (!/"fallback"[\s\S]*text_delta/.test(seen)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended early: ${seen}`);
      seen += new TextDecoder().decode(value);
    }
    aborter.abort();

    const served = micro(60, 3) + micro(1, 4);
    const record = await eventually(
      () => waitForGeneration(setup.gateway, id),
      (found) => expect(found.status).toBe('cancelled'),
    );
    expect(record).toMatchObject({ model: 'test/backup', usage: { input_tokens: 100, output_tokens: 2, cache_read_input_tokens: 8 } });
    expect(record.cost).toBeCloseTo(REFUSED_COST + served, 12);
    await eventually(
      () => listedKey(setup.gateway, issued.hash),
      (key) => expect(key.usage.cost).toBeCloseTo(REFUSED_COST + served, 12),
    );
  });
});

describe('a JSON request whose next attempt after a refusal fails with a request error', () => {
  it('answers the 400 and is charged the refused call: the record and the key spending', async () => {
    const issued = await issueLimitedKey(setup.gateway, { limit: 10 });
    setup.refusing.enqueue(refusalStep());
    setup.serving.enqueue(reply.error(400));
    const client = new Anthropic({ baseURL: `${setup.gateway.origin}/api`, authToken: issued.key, apiKey: null, maxRetries: 0, timeout: 10_000 });
    const failure = await client.beta.messages.create(fallbackRequest() as Parameters<typeof client.beta.messages.create>[0] & { stream?: false }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.BadRequestError);
    const id = (failure as InstanceType<typeof Anthropic.BadRequestError>).headers?.get('x-generation-id') ?? '';

    const record = await generationOf(setup.gateway, id);
    expect(record).toMatchObject({ status: 'error', usage: { input_tokens: 40, output_tokens: 1, cache_read_input_tokens: 8 } });
    expect(record.cost).toBeCloseTo(REFUSED_COST, 12);
    expect(record.attempts.map((attempt: { model: string; status: string }) => `${attempt.model}:${attempt.status}`)).toEqual(['test/main:refusal', 'test/backup:invalid_request']);
    await eventually(
      () => listedKey(setup.gateway, issued.hash),
      (key) => expect(key.usage.cost).toBeCloseTo(REFUSED_COST, 12),
    );
  });
});

const spans = (): DecodedSpan[] => collector.requests.filter((request) => request.path === '/v1/traces').flatMap((request) => decodeTraceExport(request.body, request.headers['content-type']));

/** The CLIENT spans of generation `id`, in attempt order, once `count` of them arrived. */
async function attemptSpans(id: string, count: number): Promise<DecodedSpan[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    await setup.gateway.server.flushRecords();
    const all = spans();
    const generation = all.find((span) => span.attributes['switchboard.generation.id'] === id);
    if (generation) {
      const traced = all.filter((span) => span.traceId === generation.traceId && span.kind === SPAN_KIND_CLIENT);
      if (traced.length >= count) return traced.sort((a, b) => Number(a.attributes['switchboard.attempt.index']) - Number(b.attributes['switchboard.attempt.index']));
    }
    if (Date.now() > deadline) throw new Error(`no attempt spans of ${id} arrived`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("a refused attempt's span", () => {
  it.each([false, true])('carries the usage its call reported, the serving one its own (stream: %s)', async (stream) => {
    setup.refusing.enqueue(refusalStep());
    setup.serving.enqueue(anthropicStep({ text: 'Port scanners probe hosts for open ports.', usage: { input: 60, output: 6 } }));
    const client = new Anthropic({ baseURL: `${setup.gateway.origin}/api`, authToken: setup.gateway.api_key, apiKey: null, maxRetries: 0, timeout: 10_000 });
    let id: string;
    if (stream) {
      const { data, response } = await client.beta.messages.create({ ...fallbackRequest(), stream: true } as Parameters<typeof client.beta.messages.create>[0] & { stream: true }).withResponse();
      for await (const event of data) void event;
      id = response.headers.get('x-generation-id') ?? '';
    } else {
      const { response } = await client.beta.messages.create(fallbackRequest() as Parameters<typeof client.beta.messages.create>[0] & { stream?: false }).withResponse();
      id = response.headers.get('x-generation-id') ?? '';
    }

    const [refused, served] = await attemptSpans(id, 2);
    expect(refused?.attributes).toMatchObject({
      'switchboard.attempt.status': 'refusal',
      // Input counts cache reads too, as the conventions' input tokens do.
      'gen_ai.usage.input_tokens': 48,
      'gen_ai.usage.output_tokens': 1,
      'gen_ai.usage.cache_read.input_tokens': 8,
    });
    expect(served?.attributes).toMatchObject({ 'switchboard.attempt.status': 'success', 'gen_ai.usage.input_tokens': 60, 'gen_ai.usage.output_tokens': 6 });
  });
});
