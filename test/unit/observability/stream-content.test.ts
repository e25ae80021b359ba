/** Rebuilding a stream's content blocks from its events (only when content is captured). */
import { describe, expect, it } from 'vitest';
import { StreamContentCollector } from '#src/observability/stream-content.ts';

describe('StreamContentCollector', () => {
  it('joins text, thinking and tool input deltas into blocks by index', () => {
    const collector = new StreamContentCollector();
    const events: [string, unknown][] = [
      ['content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }],
      ['content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'Let me ' } }],
      ['content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: 'think.' } }],
      ['content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'sig' } }],
      ['content_block_stop', { index: 0 }],
      ['content_block_start', { index: 1, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'Hello ' } }],
      ['content_block_delta', { index: 1, delta: { type: 'text_delta', text: 'world' } }],
      ['content_block_stop', { index: 1 }],
      ['content_block_start', { index: 2, content_block: { type: 'tool_use', id: 'tu_1', name: 'get', input: {} } }],
      ['content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '{"city":' } }],
      ['content_block_delta', { index: 2, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } }],
      ['content_block_stop', { index: 2 }],
    ];
    for (const [name, data] of events) collector.add(name, data);
    expect(collector.content()).toEqual([
      { type: 'thinking', thinking: 'Let me think.', signature: 'sig' },
      { type: 'text', text: 'Hello world' },
      { type: 'tool_use', id: 'tu_1', name: 'get', input: { city: 'Paris' } },
    ]);
  });

  it('keeps a tool input that is not valid JSON as text, and an empty one as {}', () => {
    const collector = new StreamContentCollector();
    collector.add('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'a', name: 'n', input: {} } });
    collector.add('content_block_delta', { index: 0, delta: { partial_json: '{"cut' } });
    collector.add('content_block_stop', { index: 0 });
    collector.add('content_block_start', { index: 1, content_block: { type: 'tool_use', id: 'b', name: 'n', input: {} } });
    collector.add('content_block_delta', { index: 1, delta: { partial_json: '' } });
    collector.add('content_block_stop', { index: 1 });
    expect(collector.content()).toEqual([
      { type: 'tool_use', id: 'a', name: 'n', input: '{"cut' },
      { type: 'tool_use', id: 'b', name: 'n', input: {} },
    ]);
  });
});
