/**
 * A conversation with its tool calls and results written out as text, for the final turn of a tool loop on a
 * vendor that cannot disable tools while offering them (Amazon Bedrock's Converse API has no
 * `toolChoice: none`, and refuses tool blocks in a request that offers no tools: the AI SDK would drop them,
 * and with them the results the answer needs). The model still reads every call and result.
 */
import type { ContentBlockParam, MessageParam } from '#src/api-types.ts';
import { isGatewayToolUseId } from '#src/server-tools/index.ts';

type Block = Record<string, unknown> & { type: string };

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return (content as Block[])
    .map((item) => {
      if (item.type === 'text') return String(item.text ?? '');
      if (item.type === 'search_result') {
        const texts = Array.isArray(item.content) ? (item.content as Block[]).map((inner) => String(inner.text ?? '')).join('\n') : '';
        return [`${String(item.title ?? '')}`, `URL: ${String(item.source ?? '')}`, texts].filter(Boolean).join('\n');
      }
      return `[${item.type}]`;
    })
    .join('\n\n');
}

/** One `tool_use` or `tool_result` block as a text block; any other block as it is. */
export function toolBlockAsText(block: Block): ContentBlockParam {
  if (block.type === 'tool_use') {
    return { type: 'text', text: `[Tool call ${String(block.id)}: ${String(block.name)}(${JSON.stringify(block.input ?? {})})]` };
  }
  if (block.type === 'tool_result') {
    const status = block.is_error === true ? ' (error)' : '';
    return { type: 'text', text: `[Tool result ${String(block.tool_use_id)}${status}]\n${resultText(block.content)}` };
  }
  return block as ContentBlockParam;
}

function hasToolBlock(message: MessageParam): boolean {
  const content = (message as { content?: unknown }).content;
  return Array.isArray(content) && (content as Block[]).some((block) => block.type === 'tool_use' || block.type === 'tool_result');
}

/** The messages with every `tool_use` and `tool_result` block turned into a text block; others are kept as they are. */
export function convertToolBlocksToText(messages: readonly MessageParam[]): MessageParam[] {
  return messages.map((message) => {
    if (!hasToolBlock(message)) return message;
    const content = (message as { content: Block[] }).content;
    return { ...message, content: content.map(toolBlockAsText) } as MessageParam;
  });
}

/**
 * A passed-back conversation's gateway calls whose tool this request does not offer (a web search passed back
 * to a request that offers only `datetime`), with their results, as text: a vendor may refuse a tool call
 * naming a tool it was not given, and the model reads the text all the same. The same messages when there are
 * none.
 */
export function convertUnofferedGatewayCallsToText(messages: readonly MessageParam[], offered: ReadonlySet<string>): MessageParam[] {
  const unoffered = new Set<unknown>();
  for (const message of messages) {
    const content = (message as { content?: unknown }).content;
    if (!Array.isArray(content)) continue;
    for (const block of content as Block[]) {
      if (block.type === 'tool_use' && isGatewayToolUseId(block.id) && !offered.has(String(block.name))) unoffered.add(block.id);
    }
  }
  if (unoffered.size === 0) return messages as MessageParam[];
  const isUnoffered = (block: Block) => (block.type === 'tool_use' && unoffered.has(block.id)) || (block.type === 'tool_result' && unoffered.has(block.tool_use_id));
  return messages.map((message) => {
    const content = (message as { content?: unknown }).content;
    if (!Array.isArray(content) || !(content as Block[]).some(isUnoffered)) return message;
    return { ...message, content: (content as Block[]).map((block) => (isUnoffered(block) ? toolBlockAsText(block) : block)) } as MessageParam;
  });
}
