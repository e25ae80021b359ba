/**
 * Routing metadata over HTTP: `gateway_metadata` only when asked for (`X-Gateway-Metadata: enabled` or the
 * legacy `X-Gateway-Experimental-Metadata`), with every field of the interface plus `attempts`, riding
 * `message_stop` in a stream; and an `X-Generation-Id` header on every answer, errors included.
 */
import { describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import {
  ALPHA_FIRST,
  anthropicClient,
  useAlphaBetaGateway,
  eventPayload,
  messageBody,
  metadataOf,
  postMessage,
  streamMessage,
  WITH_METADATA,
  type RoutingMetadata,
} from './routing-support.ts';

const setup = useAlphaBetaGateway();

describe('gateway_metadata is opt-in', () => {
  it.each<[string, Record<string, string>, boolean]>([
    ['no header', {}, false],
    ['X-Gateway-Metadata: disabled', { 'x-gateway-metadata': 'disabled' }, false],
    ['X-Gateway-Metadata: enabled', { 'X-Gateway-Metadata': 'enabled' }, true],
    ['legacy X-Gateway-Experimental-Metadata: enabled', { 'X-Gateway-Experimental-Metadata': 'enabled' }, true],
  ])('%s -> present: %s', async (_label, headers, present) => {
    setup.alpha.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST), headers);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect('gateway_metadata' in call.body).toBe(present);
  });

  it('has every field of the interface, plus the attempts', async () => {
    setup.alpha.enqueue(reply.fixture('anthropic-text', { delayMs: 40 }));
    const call = await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const metadata = metadataOf(call);
    expect(metadata).toEqual<RoutingMetadata>({
      attempt: 1,
      endpoints: {
        available: [
          { model: 'test/primary', provider: 'Alpha Cloud', selected: true },
          { model: 'test/primary', provider: 'Beta Cloud', selected: false },
        ],
        total: 2,
      },
      generation_time: expect.any(Number) as unknown as number,
      is_byok: false,
      region: 'global',
      requested: 'test/primary',
      strategy: 'order',
      summary: 'served by test/primary on Alpha Cloud on the first attempt (order)',
      attempts: [{ provider: 'Alpha Cloud', model: 'test/primary', status: 'success', http_status: 200, is_byok: false, duration_ms: expect.any(Number) as unknown as number, response_model: 'claude-sonnet-4-5-20250929' }],
    });
    expect(Number.isInteger(metadata.generation_time)).toBe(true);
    expect(metadata.generation_time).toBeGreaterThanOrEqual(40);
    expect(metadata.attempts[0]?.duration_ms).toBeGreaterThanOrEqual(40);
  });

  it('after a failover, names the failure and the endpoint that answered', async () => {
    setup.alpha.enqueue(reply.error(500));
    setup.beta.enqueue(reply.fixture('anthropic-text'));
    const metadata = metadataOf(await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST), WITH_METADATA));

    expect(metadata.attempt).toBe(2);
    expect(metadata.endpoints.available.map(({ provider, selected }) => [provider, selected])).toEqual([
      ['Alpha Cloud', false],
      ['Beta Cloud', true],
    ]);
    expect(metadata.attempts.map(({ status, http_status }) => [status, http_status])).toEqual([
      ['server_error', 500],
      ['success', 200],
    ]);
    expect(metadata.summary).toBe('test/primary on Alpha Cloud (server error) failed; served by test/primary on Beta Cloud');
  });
});

describe('gateway_metadata in a stream', () => {
  it('rides message_stop when asked for', async () => {
    setup.alpha.enqueue(reply.fixture('anthropic-text'));
    const call = await streamMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST), WITH_METADATA);

    expect(call.status).toBe(200);
    expect(call.events.at(-1)?.event).toBe('message_stop');
    const metadata = eventPayload(call, 'message_stop').gateway_metadata as RoutingMetadata | undefined;
    expect(metadata).toMatchObject({ attempt: 1, requested: 'test/primary', strategy: 'order', is_byok: false, region: 'global' });
    expect(metadata?.endpoints.total).toBe(2);
    expect(call.events.filter((event) => event.data.includes('gateway_metadata')).map((event) => event.event)).toEqual(['message_stop']);
  });

  it('is absent from every event when not asked for', async () => {
    setup.alpha.enqueue(reply.fixture('anthropic-text'));
    const call = await streamMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));

    expect(call.status).toBe(200);
    expect(call.events.at(-1)?.event).toBe('message_stop');
    expect(call.events.some((event) => event.data.includes('gateway_metadata'))).toBe(false);
  });

  it('reaches a user of the Anthropic SDK with the legacy header', async () => {
    setup.alpha.enqueue(reply.fixture('anthropic-text'));
    const client = anthropicClient(setup.gateway, { 'X-Gateway-Experimental-Metadata': 'enabled' });
    // A variable, not a literal: the SDK's types do not know the gateway's `provider` field.
    const params = { model: 'test/primary', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hi' }], stream: true as const, ...ALPHA_FIRST };
    const stream = await client.messages.create(params);
    let stop: unknown;
    for await (const event of stream) if (event.type === 'message_stop') stop = event;
    expect((stop as { gateway_metadata?: RoutingMetadata }).gateway_metadata?.endpoints.available).toContainEqual({ model: 'test/primary', provider: 'Alpha Cloud', selected: true });
  });
});

describe('X-Generation-Id', () => {
  const generationId = /^gen_[A-Za-z0-9_-]{24}$/;

  it('is on a JSON answer, a stream, and every kind of error, and differs per request', async () => {
    setup.alpha.enqueue(reply.fixture('anthropic-text'), reply.fixture('anthropic-text'), reply.error(529));
    setup.beta.enqueue(reply.error(529));
    const answers = [
      await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST)),
      await streamMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST)),
      await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST)),
      await postMessage(setup.gateway, messageBody('test/unknown-model')),
      await postMessage(setup.gateway, { model: 'test/primary', messages: [] }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 529, 404, 400]);
    const ids = answers.map((answer) => answer.headers.get('x-generation-id'));
    for (const id of ids) expect(id).toMatch(generationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('is on a 401 without a key', async () => {
    const response = await fetch(`${setup.gateway.baseUrl}/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(messageBody('test/primary')) });
    await response.arrayBuffer();
    expect(response.status).toBe(401);
    expect(response.headers.get('x-generation-id')).toMatch(generationId);
  });
});
