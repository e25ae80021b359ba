/**
 * A conversation the client passes back may hold the gateway's tool blocks from an earlier tool-loop answer:
 * `server_tool_use` / `mcp_tool_use` with the gateway's ids, their result blocks (`datetime_tool_result` is
 * the gateway's own type), and text citing the gateway's search results. With gateway tools in the request the
 * loop turns them back into the tool turns the model saw (step-request.ts). Without, no upstream could read
 * them: Anthropic would reject a result type it does not know and try to decrypt the gateway's opaque fields,
 * the translated vendors have no server tools, and plain tool turns would need the tools offered (Bedrock
 * refuses tool blocks in a request without `toolConfig`). So each gateway block becomes a text block where it
 * stands, the same `[Tool call …]` / `[Tool result …]` text the loop's final turn uses on Bedrock, and the
 * gateway's citations are dropped. Anthropic's own server tool blocks are left alone.
 *
 * The check is one pass over the assistant turns' blocks, stopping at the first gateway block; a request
 * without any pays that pass and nothing else.
 */
import type { ContentBlockParam, MessageParam, MessageRequest } from '#src/api-types.ts';
import { defaultMcpPrefix, isGatewayCitation, isGatewayToolUseId, modelToolResultFromBlock, withoutGatewayCitations } from '#src/server-tools/index.ts';
import { toolBlockAsText } from './tool-loop/convert-tool-blocks-to-text.ts';

type Block = Record<string, unknown> & { type: string };

const USE_TYPES: ReadonlySet<string> = new Set(['server_tool_use', 'mcp_tool_use']);

function isGatewayBlock(block: Block): boolean {
  const { type } = block;
  // The blocks of nearly every conversation, answered first.
  if (type === 'text') return Array.isArray(block.citations) && block.citations.some(isGatewayCitation);
  if (type === 'tool_use' || type === 'thinking') return false;
  if (USE_TYPES.has(type)) return isGatewayToolUseId(block.id);
  return type.endsWith('_tool_result') && isGatewayToolUseId(block.tool_use_id);
}

function assistantBlocks(message: MessageParam): Block[] | null {
  if (message.role !== 'assistant') return null;
  const content = (message as { content?: unknown }).content;
  return Array.isArray(content) ? (content as Block[]) : null;
}

/** Whether any assistant turn holds one of the gateway's tool blocks or citations. */
export function hasPassedBackGatewayBlocks(messages: readonly MessageParam[]): boolean {
  for (let index = 0; index < messages.length; index += 1) {
    const blocks = assistantBlocks(messages[index] as MessageParam);
    if (blocks === null) continue;
    for (let position = 0; position < blocks.length; position += 1) if (isGatewayBlock(blocks[position] as Block)) return true;
  }
  return false;
}

/** A cache marker the client put on a gateway block stays on the text that replaces it. */
function keepMarker(text: ContentBlockParam, block: Block): ContentBlockParam {
  return block.cache_control ? ({ ...text, cache_control: block.cache_control } as ContentBlockParam) : text;
}

function blocksAsText(blocks: readonly Block[]): ContentBlockParam[] {
  const inputs = new Map<unknown, unknown>();
  return blocks.map((block) => {
    if (!isGatewayBlock(block)) return block as ContentBlockParam;
    if (USE_TYPES.has(block.type)) {
      inputs.set(block.id, block.input);
      const name = block.type === 'mcp_tool_use' ? `${defaultMcpPrefix(String(block.server_name))}__${String(block.name)}` : String(block.name);
      return keepMarker(toolBlockAsText({ type: 'tool_use', id: block.id, name, input: block.input ?? {} }), block);
    }
    if (block.type === 'text') return withoutGatewayCitations(block) as ContentBlockParam;
    const result = modelToolResultFromBlock(block, { searchResultBlocks: false }, inputs.get(block.tool_use_id));
    return keepMarker(toolBlockAsText(result as unknown as Block), block);
  });
}

/**
 * The request with the gateway's passed-back blocks as text (see the module comment); the very same request
 * when it has none.
 */
export function withGatewayBlocksAsText<Request extends Pick<MessageRequest, 'messages'>>(request: Request): Request {
  if (!hasPassedBackGatewayBlocks(request.messages)) return request;
  const messages = request.messages.map((message) => {
    const blocks = assistantBlocks(message);
    return blocks?.some(isGatewayBlock) ? ({ ...message, content: blocksAsText(blocks) } as MessageParam) : message;
  });
  return { ...request, messages };
}
