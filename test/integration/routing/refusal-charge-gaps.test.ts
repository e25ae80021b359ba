/**
 * Refusals moved on from are charged whatever follows them, over HTTP: a streaming client that leaves while the
 * serving model's stream is under way (the refused call on the record and the key's spending, at its prices, and
 * the serving call what its message_start announced, at its own), a JSON request whose next attempt fails with
 * a request error (a 400: the answer is the error, the refused call is billed all the same), and the refused
 * attempt's OTLP span carrying the `gen_ai.usage.*` of what it reported (the export decoded as a collector
 * would). `test/main` refuses at $1/$2 per million tokens, `test/backup` answers at $3/$4.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { useSuiteSetup } from '#test/helpers/suite-setup.ts';
import { attemptSpans, eventually, generationOf, startOtlpCollector, waitForGeneration } from '#test/integration/observability/observability-support.ts';
import { issueLimitedKey, listedKey } from '#test/integration/limits/limits-support.ts';
import { attemptTrail, fallbackRequest, keyClient, micro, refusalStep, REFUSED_COST, servingStep, startRefusalGateway } from '#test/integration/routing/refusal-support.ts';

/** The refusal setup, its gateway exporting traces to an OTLP collector. */
const setup = useSuiteSetup({
  async start() {
    const refusal = await startRefusalGateway({ env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
    return { ...refusal, collector: await startOtlpCollector(refusal.gateway) };
  },
  async stop({ collector, close }) {
    await close();
    await collector.close();
  },
  reset: ({ clear }) => clear(),
});

describe('a stream the client leaves while the serving model answers after a refusal', () => {
  it('charges the refused call at its prices and the serving call what its message_start announced, at its own', async () => {
    const issued = await issueLimitedKey(setup.gateway, { limit: 10 });
    setup.refusing.enqueue(refusalStep());
    // message_start (60 in, 1 out), ping, the text block's start and first delta, then nothing more.
    setup.serving.enqueue(servingStep({ stallAfterEvents: 4 }));
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
    const client = keyClient(setup.gateway, issued.key);
    const failure = await client.beta.messages.create(fallbackRequest() as Parameters<typeof client.beta.messages.create>[0] & { stream?: false }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Anthropic.BadRequestError);
    const id = (failure as InstanceType<typeof Anthropic.BadRequestError>).headers?.get('x-generation-id') ?? '';

    const record = await generationOf(setup.gateway, id);
    expect(record).toMatchObject({ status: 'error', usage: { input_tokens: 40, output_tokens: 1, cache_read_input_tokens: 8 } });
    expect(record.cost).toBeCloseTo(REFUSED_COST, 12);
    expect(attemptTrail(record)).toEqual(['test/main:refusal', 'test/backup:invalid_request']);
    await eventually(
      () => listedKey(setup.gateway, issued.hash),
      (key) => expect(key.usage.cost).toBeCloseTo(REFUSED_COST, 12),
    );
  });
});

describe("a refused attempt's span", () => {
  it.each([false, true])('carries the usage its call reported, the serving one its own (stream: %s)', async (stream) => {
    setup.refusing.enqueue(refusalStep());
    setup.serving.enqueue(servingStep());
    const client = keyClient(setup.gateway, setup.gateway.api_key);
    let id: string;
    if (stream) {
      const { data, response } = await client.beta.messages.create({ ...fallbackRequest(), stream: true } as Parameters<typeof client.beta.messages.create>[0] & { stream: true }).withResponse();
      for await (const event of data) void event;
      id = response.headers.get('x-generation-id') ?? '';
    } else {
      const { response } = await client.beta.messages.create(fallbackRequest() as Parameters<typeof client.beta.messages.create>[0] & { stream?: false }).withResponse();
      id = response.headers.get('x-generation-id') ?? '';
    }

    const [refused, served] = await attemptSpans(setup.gateway, setup.collector, id, 2);
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
