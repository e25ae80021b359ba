/**
 * Rebuilds the content blocks of an Anthropic event stream, for workspaces and destinations that keep
 * completions. Only used when content is captured: otherwise no delta is ever parsed.
 */

interface DeltaPayload {
  index?: number;
  content_block?: Record<string, unknown>;
  delta?: { type?: string; text?: string; thinking?: string; partial_json?: string; signature?: string };
}

/** Collects the blocks of one stream, in index order. */
export class StreamContentCollector {
  private readonly blocks: Record<string, unknown>[] = [];
  private readonly partialJson = new Map<number, string>();

  /** Feeds one `content_block_*` event: its name and its payload. */
  add(name: string, event: unknown): void {
    const payload = event as DeltaPayload;
    const index = payload.index ?? 0;
    if (name === 'content_block_start' && payload.content_block) {
      this.blocks[index] = { ...payload.content_block };
      return;
    }
    const block = this.blocks[index];
    if (!block) return;
    if (name === 'content_block_delta') {
      const delta = payload.delta ?? {};
      if (typeof delta.text === 'string') block.text = `${typeof block.text === 'string' ? block.text : ''}${delta.text}`;
      if (typeof delta.thinking === 'string') block.thinking = `${typeof block.thinking === 'string' ? block.thinking : ''}${delta.thinking}`;
      if (typeof delta.signature === 'string') block.signature = delta.signature;
      if (typeof delta.partial_json === 'string') this.partialJson.set(index, `${this.partialJson.get(index) ?? ''}${delta.partial_json}`);
      return;
    }
    if (name === 'content_block_stop') {
      const json = this.partialJson.get(index);
      if (json === undefined) return;
      try {
        block.input = json === '' ? {} : (JSON.parse(json) as unknown);
      } catch {
        block.input = json;
      }
    }
  }

  /** The blocks collected so far. */
  content(): unknown[] {
    return this.blocks.filter((block) => block !== undefined);
  }
}
