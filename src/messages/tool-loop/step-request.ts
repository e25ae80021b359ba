/**
 * The request of one step of the tool loop, built fresh for each attempt from the client's original validated
 * request (never modified): the gateway tools offered as function tools, the passed-back conversation's
 * gateway blocks turned back into the tool turns the model saw, then one assistant turn and one tool-result
 * turn per earlier step. The attempt's API family decides how search results travel (`search_result` blocks
 * for Anthropic-format upstreams unless structured output is asked for, text elsewhere) and how tools are
 * disabled on the final turn.
 */
import type { ContentBlockParam, MessageParam, MessageRequest, ToolChoice, ToolResultBlockParam } from '#src/api-types.ts';
import type { ApiFamily } from '#src/providers/provider-adapter.ts';
import { countCacheBreakpoints, MAX_CACHE_BREAKPOINTS, placeTopLevelCacheBreakpoint } from '#src/request/cache-breakpoints.ts';
import { convertToModelToolTurns, modelToolResultBlock, type GatewayToolOutcome } from '#src/server-tools/index.ts';
import { convertToolBlocksToText, convertUnofferedGatewayCallsToText } from './convert-tool-blocks-to-text.ts';
import { threadContinuing } from '#src/routing/sticky/thread-pins.ts';
import { definitionsFor, type ToolLoopSetup } from './prepare-tool-loop.ts';

/** One finished step, as the next steps send it back to the model. */
export interface LoopTurn {
  /** The step's content as the model produced it; its gateway calls carry the gateway's ids. */
  assistant: ContentBlockParam[];
  /** The step's gateway calls' outcomes, in call order. */
  outcomes: GatewayToolOutcome[];
  /** The model's own id of each gateway call, by the gateway's id: what a thread the upstream holds knows it by. */
  modelIds?: ReadonlyMap<string, string>;
}

/**
 * Where a threaded step resumes. A later step: the upstream holds the conversation under the previous step's
 * answer, so the step continues from it (`thread.previous_message_id`) and sends only the tool results, by the
 * ids the model gave its calls. The first step of a continue whose pin re-points it (the answer of an earlier
 * tool loop, held under that loop's last step): the client's new messages, continuing from that step.
 */
export interface ThreadResume {
  previousMessageId: string;
  afterStep: boolean;
}

/** Everything one step's request is built from. */
export interface StepRequestInput {
  original: MessageRequest;
  setup: ToolLoopSetup;
  /** The original conversation as the model sees it, for this family (see `modelHistory`). */
  history: readonly MessageParam[];
  turns: readonly LoopTurn[];
  family: ApiFamily;
  /** The final turn: tool calls disabled so the answer ends in natural language. */
  toolsDisabled: boolean;
  /** Set on a thread's later steps (see `ThreadResume`). */
  resume?: ThreadResume | undefined;
}

/**
 * Families without `tool_choice: none` (Bedrock's Converse API): their final turn offers no tools and gives the
 * conversation's tool calls and results as text. Every other family disables tools with `tool_choice: none`.
 */
const NO_TOOL_CHOICE_NONE: ReadonlySet<ApiFamily> = new Set(['bedrock']);

/**
 * Whether search results travel as `search_result` blocks (Anthropic-format upstreams), so the model can cite
 * them. Not when the request asks for structured output (`output_config.format`): Anthropic does not combine
 * citations with it, so the results go as text there too.
 */
export function usesSearchResultBlocks(family: ApiFamily, request: Pick<MessageRequest, 'output_config'>): boolean {
  return family === 'anthropic' && !request.output_config?.format;
}

/**
 * The original conversation with its passed-back gateway blocks turned into the tool turns the model saw;
 * those of a tool this request does not offer, as text.
 */
export function modelHistory(original: MessageRequest, setup: ToolLoopSetup, family: ApiFamily): MessageParam[] {
  const turns = convertToModelToolTurns(original.messages, { searchResultBlocks: usesSearchResultBlocks(family, original), mcpPrefixes: setup.mcpPrefixes });
  const offered = new Set(setup.definitions.flatMap((tool) => (typeof tool.name === 'string' ? [tool.name] : [])));
  return convertUnofferedGatewayCallsToText(turns, offered);
}

/**
 * The step's `tool_choice`: the client's on the first step; afterwards a forcing choice (`any`, `tool`) becomes
 * `auto`, or the loop would force a call at every step; `none` on the final turn.
 */
function toolChoiceFor(original: ToolChoice | undefined, firstStep: boolean, toolsDisabled: boolean): ToolChoice | undefined {
  if (toolsDisabled) return { type: 'none' };
  if (original === undefined || firstStep) return original;
  if (original.type !== 'any' && original.type !== 'tool') return original;
  const disableParallel = (original as { disable_parallel_tool_use?: boolean }).disable_parallel_tool_use;
  return { type: 'auto', ...(disableParallel ? { disable_parallel_tool_use: true } : {}) };
}

function appendTurns(history: readonly MessageParam[], turns: readonly LoopTurn[], searchResultBlocks: boolean): MessageParam[] {
  const messages = history.slice();
  for (const turn of turns) {
    messages.push({ role: 'assistant', content: turn.assistant });
    if (turn.outcomes.length > 0) messages.push({ role: 'user', content: turn.outcomes.map((outcome) => modelToolResultBlock(outcome, { searchResultBlocks })) });
  }
  return messages;
}

/** A step's tool results as the thread the upstream holds knows its calls: by the ids the model gave them. */
export function threadToolResults(turn: Pick<LoopTurn, 'outcomes' | 'modelIds'>, searchResultBlocks: boolean): ToolResultBlockParam[] {
  return turn.outcomes.map((outcome) => {
    const block = modelToolResultBlock(outcome, { searchResultBlocks });
    return { ...block, tool_use_id: turn.modelIds?.get(outcome.toolUseId) ?? block.tool_use_id };
  });
}

/** The last step's tool results, for the thread the upstream holds. */
function resumedTurn(turns: readonly LoopTurn[], searchResultBlocks: boolean): MessageParam[] {
  const last = turns.at(-1);
  if (!last) return [];
  return [{ role: 'user', content: threadToolResults(last, searchResultBlocks) }];
}

/** The request of one step for one attempt; the original request is not modified. */
export function buildStepRequest(input: StepRequestInput): MessageRequest {
  const { original, setup, family, toolsDisabled, resume } = input;
  const searchResultBlocks = usesSearchResultBlocks(family, original);
  const messages = resume?.afterStep ? resumedTurn(input.turns, searchResultBlocks) : appendTurns(input.history, input.turns, searchResultBlocks);
  const { tools: _tools, tool_choice: _choice, ...kept } = original;
  const rest = resume ? ({ ...kept, thread: threadContinuing(resume.previousMessageId) } as typeof kept) : kept;
  let request: MessageRequest;
  if (toolsDisabled && NO_TOOL_CHOICE_NONE.has(family)) {
    request = { ...rest, messages: convertToolBlocksToText(messages) };
  } else if (definitionsFor(setup, family).length === 0) {
    // Nothing to offer (the request's only tools are an MCP server's that is down): no tools, and no
    // `tool_choice`, which Anthropic refuses without tools.
    request = { ...rest, messages };
  } else {
    const toolChoice = toolChoiceFor(original.tool_choice, input.turns.length === 0, toolsDisabled);
    request = { ...rest, messages, tools: definitionsFor(setup, family), ...(toolChoice ? { tool_choice: toolChoice } : {}) };
  }
  return withTopLevelMarker(request);
}

/**
 * The top-level `cache_control` placed on the growing conversation's last block, so each step reads the
 * previous one's cache. With every breakpoint already taken, the planner accepted the original only because the
 * marker fell on a block already marked; the conversation's new last block has no room for it, so it is left
 * out rather than failing the step.
 */
function withTopLevelMarker(request: MessageRequest): MessageRequest {
  if (!request.cache_control) return request;
  if (countCacheBreakpoints(request) >= MAX_CACHE_BREAKPOINTS) {
    const { cache_control: _full, ...rest } = request;
    return rest as MessageRequest;
  }
  return placeTopLevelCacheBreakpoint(request) as MessageRequest;
}
