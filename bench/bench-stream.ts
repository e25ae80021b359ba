/**
 * The bench's upstream answers: the short answer the fake upstream streams (`bench/fake-upstream.ts`) and
 * `bench/stream-instructions.ts` passes through the gateway's stream path in one process (the usual seven
 * Anthropic events), and the JSON message the fake upstream and `bench/latency-timeline.ts` answer with.
 */

/** The JSON answer, as bytes. */
export const BENCH_MESSAGE = Buffer.from(
  JSON.stringify({
    id: 'msg_bench_0000000000000000000001',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'Hello! How can I help you today?' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  }),
);

/** One server-sent event as the fake upstream frames it. */
export function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The seven events of the bench's streamed answer, each framed. */
export function streamEvents(model: string): string[] {
  return [
    sse('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_bench_0000000000000000000002',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    }),
    sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello! How can' } }),
    sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' I help you today?' } }),
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
    sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 10 } }),
    sse('message_stop', { type: 'message_stop' }),
  ];
}
