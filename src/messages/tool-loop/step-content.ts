/**
 * One step's content, read two ways: as the client sees it (a gateway tool call as `server_tool_use` or
 * `mcp_tool_use` with the gateway's id, citations of the gateway's search results as
 * `web_search_result_location`) and as the model sends it back on the next step (a `tool_use` with the same
 * id, the text without citations of gateway results). Client tool calls and Anthropic's own blocks are the
 * same both ways. The per-block rules here serve complete messages and the stream state alike.
 */
import type { ContentBlockParam, McpToolUseBlock, ResponseContentBlock, ServerToolUseBlock, ToolUseBlock } from '#src/api-types.ts';
import {
  clientToolUseBlock,
  mapSearchResultCitation,
  newGatewayToolUseId,
  type GatewayToolCall,
  type GatewayToolOutcome,
} from '#src/server-tools/index.ts';
import { isSearchResultLocation } from '#src/server-tools/map-search-result-citation.ts';
import type { ToolLoopSetup } from './prepare-tool-loop.ts';

/** What one step asked for and said, both ways. */
export interface StepReading {
  /** The step's blocks as the client sees them (result blocks not included: they follow the step). */
  clientBlocks: ResponseContentBlock[];
  /** The step's content for the next step's assistant turn. */
  assistantTurn: ContentBlockParam[];
  /** The gateway tool calls, in the order the model made them. */
  gatewayCalls: GatewayToolCall[];
  /** How many client tool calls the step made (any ends the loop). */
  clientToolCalls: number;
  /** Model-facing names of every tool called, in order. */
  toolsCalled: string[];
}

/**
 * The gateway call a model's `tool_use` makes, with a fresh gateway id (and the model's own, `modelId`);
 * undefined for a client tool.
 */
export function gatewayCallOf(name: string, input: unknown, setup: Pick<ToolLoopSetup, 'tools'>, modelId?: unknown): GatewayToolCall | undefined {
  const tool = setup.tools.get(name);
  if (!tool) return undefined;
  return typeof modelId === 'string' ? { tool, id: newGatewayToolUseId(), input, modelId } : { tool, id: newGatewayToolUseId(), input };
}

/** The use block the client sees for a gateway call, with the input it is known by now. */
export function clientUseBlock(call: GatewayToolCall): ServerToolUseBlock | McpToolUseBlock {
  return clientToolUseBlock(call);
}

/** A citation as the client sees it: the gateway's search results cited as `web_search_result_location`. */
export function clientCitation(citation: unknown, sources: ReadonlySet<string>): unknown {
  return mapSearchResultCitation(citation, sources) ?? citation;
}

/** Whether a citation cites one of the gateway's search results (dropped from the model's own turn). */
export function citesGatewayResult(citation: unknown, sources: ReadonlySet<string>): boolean {
  return isSearchResultLocation(citation) && sources.has(citation.source);
}

/** The URLs of the search results in a step's outcomes, which the model's later text may cite. */
export function searchSources(outcomes: readonly GatewayToolOutcome[], into: Set<string>): void {
  for (const outcome of outcomes) {
    for (const item of outcome.modelContent) if (item.type === 'search_result') into.add(item.source);
  }
}

type TextLike = { type: 'text'; text: string; citations?: unknown[] | null };

/**
 * A text block for the model's next turn: citations of the gateway's results dropped, exactly as
 * `convertToModelToolTurns` drops them from a passed-back turn, so the loop's turns and the client's next
 * request read the same (and share the prompt cache).
 */
export function modelTextBlock(block: { type: 'text'; citations?: unknown }, sources: ReadonlySet<string>): ContentBlockParam {
  if (!Array.isArray(block.citations)) return block as ContentBlockParam;
  const kept = block.citations.filter((citation) => !citesGatewayResult(citation, sources));
  if (kept.length === block.citations.length) return block as ContentBlockParam;
  const { citations: _dropped, ...plain } = block;
  return (kept.length > 0 ? { ...plain, citations: kept } : plain) as ContentBlockParam;
}

/** A text block as the client sees it: citations of the gateway's results mapped. */
function clientTextBlock(block: TextLike, sources: ReadonlySet<string>): ResponseContentBlock {
  const citations = Array.isArray(block.citations) ? block.citations : [];
  return (citations.length > 0 ? { ...block, citations: citations.map((citation) => clientCitation(citation, sources)) } : block) as ResponseContentBlock;
}

/** Reads a complete step's content. `sources` are the gateway search results the text may cite. */
export function readStepContent(content: readonly ResponseContentBlock[], setup: Pick<ToolLoopSetup, 'tools'>, sources: ReadonlySet<string>): StepReading {
  const reading: StepReading = { clientBlocks: [], assistantTurn: [], gatewayCalls: [], clientToolCalls: 0, toolsCalled: [] };
  for (const block of content) {
    if (block.type === 'tool_use') {
      const use = block as ToolUseBlock;
      reading.toolsCalled.push(use.name);
      const call = gatewayCallOf(use.name, use.input, setup, use.id);
      if (call) {
        reading.gatewayCalls.push(call);
        reading.clientBlocks.push(clientUseBlock(call));
        reading.assistantTurn.push({ type: 'tool_use', id: call.id, name: use.name, input: use.input });
        continue;
      }
      reading.clientToolCalls += 1;
    } else if (block.type === 'text') {
      reading.clientBlocks.push(clientTextBlock(block as TextLike, sources));
      reading.assistantTurn.push(modelTextBlock(block as TextLike, sources));
      continue;
    }
    reading.clientBlocks.push(block);
    reading.assistantTurn.push(block as ContentBlockParam);
  }
  return reading;
}

/** A step's reading before any of its content arrived (a stream's next step, or the next model's answer to it). */
export function emptyReading(): StepReading {
  return { clientBlocks: [], assistantTurn: [], gatewayCalls: [], clientToolCalls: 0, toolsCalled: [] };
}

/** A streamed tool call's input JSON, or undefined when it does not parse (the tool answers with an input error). */
export function parseToolInput(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}
