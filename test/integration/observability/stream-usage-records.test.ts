/**
 * A stream's record holds the tokens the client was told. Anthropic's `message_delta` usage may carry null
 * for the counts it does not restate (the spec and Anthropic's SDK allow it): the client, the gateway's cost
 * and the Anthropic SDK's accumulator keep `message_start`'s counts for those, and so must the record.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { ALPHA_FIRST, anthropicClient, messageBody } from '#test/integration/routing/routing-support.ts';
import { generationOf, startRecordsGateway, type RecordsGateway } from './observability-support.ts';

let setup: RecordsGateway;

beforeAll(async () => {
  setup = await startRecordsGateway();
});
afterAll(async () => {
  await setup?.close();
});

const START_USAGE = { input_tokens: 40, cache_creation_input_tokens: 300, cache_read_input_tokens: 2_000, output_tokens: 1 };
const STREAM = [
  { type: 'message_start', message: { id: 'msg_nulls', type: 'message', role: 'assistant', model: 'up-primary-alpha', content: [], stop_reason: null, stop_sequence: null, usage: START_USAGE } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello.' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { input_tokens: null, cache_creation_input_tokens: null, cache_read_input_tokens: null, output_tokens: 7 } },
  { type: 'message_stop' },
];

describe('a stream whose message_delta restates no input counts', () => {
  it('is recorded with the input and cache tokens of message_start, as the client read them', async () => {
    setup.alpha.enqueue(reply.events(STREAM));
    const stream = anthropicClient(setup.gateway).messages.stream(messageBody('test/primary', ALPHA_FIRST) as never);
    let cost: unknown;
    stream.on('streamEvent', (event) => {
      if (event.type === 'message_delta') cost = (event.usage as { cost?: unknown }).cost;
    });
    const message = await stream.finalMessage();
    const { response } = await stream.withResponse();
    // What the Anthropic SDK tells its caller, and the cost the gateway priced from the same counts.
    expect(message.usage).toMatchObject({ input_tokens: 40, cache_creation_input_tokens: 300, cache_read_input_tokens: 2_000, output_tokens: 7 });
    expect(cost).toBeGreaterThan(0);

    const record = await generationOf(setup.gateway, response.headers.get('x-generation-id') ?? '');
    expect(record.usage).toEqual({ input_tokens: 40, output_tokens: 7, cache_read_input_tokens: 2_000, cache_creation_input_tokens: 300, reasoning_tokens: 0 });
    expect(record.cost).toBe(cost);
  });
});
