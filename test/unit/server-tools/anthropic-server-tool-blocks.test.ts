/**
 * The spec's result blocks follow Anthropic's shapes, so Anthropic's own server tool blocks, passed through
 * from Anthropic-format upstreams, must still be valid response content: the recorded web search and code
 * execution responses, JSON and stream, block by block.
 */
import { describe, expect, it } from 'vitest';
import { readChunks, readFixture } from '#test/helpers/fake-upstreams/index.ts';
import { checkComponentSchema } from '#test/helpers/spec-validator.ts';

function blocksOf(name: string): unknown[] {
  const streamed = readChunks('anthropic', name)
    .map((chunk) => chunk as { type?: string; content_block?: unknown })
    .filter((event) => event.type === 'content_block_start')
    .map((event) => event.content_block);
  let whole: unknown[] = [];
  try {
    whole = readFixture<{ content: unknown[] }>('anthropic', name).content;
  } catch {
    // Some recordings exist only as a stream.
  }
  return [...whole, ...streamed];
}

describe("Anthropic's recorded server tool blocks are valid response content", () => {
  it.each(['anthropic-web-search-tool.1', 'anthropic-code-execution-20260120-prompt-cache.1'])('%s', (name) => {
    const blocks = blocksOf(name);
    expect(blocks.length).toBeGreaterThan(2);
    for (const block of blocks) expect(checkComponentSchema('ResponseContentBlock', block).errors, JSON.stringify(block).slice(0, 200)).toEqual([]);
  });
});
