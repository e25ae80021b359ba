import { startFakeUpstream, type FakeUpstream, type FakeUpstreamOptions } from './fake-server.ts';
import { encodeSseFrame, type SseLineEnding } from './sse-frame.ts';
import type { VendorError, WireFormat } from './wire-format.ts';

/** Options of the fake Gemini API. */
export interface FakeGeminiOptions extends FakeUpstreamOptions {
  lineEnding?: SseLineEnding;
}

/**
 * Google's canonical status name per HTTP status, as in the `error.status` field.
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 */
const googleStatuses: Record<number, { status: string; message: string }> = {
  400: { status: 'INVALID_ARGUMENT', message: 'Request contains an invalid argument.' },
  401: { status: 'UNAUTHENTICATED', message: 'API key not valid. Please pass a valid API key.' },
  403: { status: 'PERMISSION_DENIED', message: 'The caller does not have permission' },
  404: { status: 'NOT_FOUND', message: 'models/unknown is not found for API version v1beta.' },
  429: { status: 'RESOURCE_EXHAUSTED', message: 'You exceeded your current quota, please check your plan.' },
  500: { status: 'INTERNAL', message: 'An internal error has occurred.' },
  503: { status: 'UNAVAILABLE', message: 'The model is overloaded. Please try again later.' },
  504: { status: 'DEADLINE_EXCEEDED', message: 'Deadline expired before operation could complete.' },
};

/**
 * Gemini's 400 for a turn of function responses that does not answer each function call of the model turn
 * before it with exactly one `functionResponse` part (seen by Gemini CLI users, e.g. google-gemini/gemini-cli
 * issues 4217 and 6379); undefined when every call turn is answered so.
 */
function unansweredFunctionCalls(body: unknown): string | undefined {
  const contents = (body as { contents?: unknown } | null)?.contents;
  if (!Array.isArray(contents)) return undefined;
  const count = (content: unknown, key: string) => ((content as { parts?: unknown[] } | undefined)?.parts ?? []).filter((part) => typeof part === 'object' && part !== null && key in part).length;
  for (const [index, content] of contents.entries()) {
    const calls = count(content, 'functionCall');
    if (calls === 0 || index === contents.length - 1) continue;
    if (count(contents[index + 1], 'functionResponse') !== calls) {
      return 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';
    }
    const mismatch = responseOutOfOrder(content, contents[index + 1], index);
    if (mismatch !== undefined) return mismatch;
  }
  return undefined;
}

type Named = { name?: unknown; id?: unknown };

/**
 * Gemini pairs the i-th `functionResponse` of a turn with the i-th `functionCall` of the turn before (by id
 * where both carry one, else by name): a response turn in another order is refused, as Google's own executor
 * does for Claude Code's permuted parallel results (router-for-me/CLIProxyAPI#5199).
 */
function responseOutOfOrder(callTurn: unknown, responseTurn: unknown, index: number): string | undefined {
  const pick = (content: unknown, key: string) =>
    ((content as { parts?: unknown[] } | undefined)?.parts ?? []).flatMap((part) => (typeof part === 'object' && part !== null && key in part ? [(part as Record<string, Named>)[key] ?? {}] : []));
  const calls = pick(callTurn, 'functionCall');
  const responses = pick(responseTurn, 'functionResponse');
  for (const [position, call] of calls.entries()) {
    const response = responses[position] ?? {};
    const byId = call.id !== undefined && response.id !== undefined;
    if (byId ? call.id === response.id : call.name === response.name) continue;
    const what = byId ? `id "${String(response.id)}" does not match functionCall.id "${String(call.id)}"` : `name "${String(response.name)}" does not match functionCall.name "${String(call.name)}"`;
    return `contents[${index + 1}].parts[${position}]: functionResponse.${what} at contents[${index}].parts[${position}]`;
  }
  return undefined;
}

/**
 * Gemini's 400 for function declarations whose names it refuses (longer than 64, a first character other than
 * a letter or `_`, or a character outside letters, digits, `_`, `.`, `:`, `-`), one line per name, as
 * google-gemini/gemini-cli#9535 and kaitranntt/ccs#25 (Claude Code through a proxy) show; undefined when
 * every name is accepted.
 */
function invalidFunctionNames(body: unknown): string | undefined {
  const tools = (body as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return undefined;
  const lines: string[] = [];
  for (const [toolIndex, tool] of tools.entries()) {
    const declarations = (tool as { functionDeclarations?: Array<{ name?: unknown }> }).functionDeclarations ?? [];
    for (const [index, declaration] of declarations.entries()) {
      if (/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/.test(String(declaration.name))) continue;
      lines.push(
        `* GenerateContentRequest.tools[${toolIndex}].function_declarations[${index}].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.\n`,
      );
    }
  }
  return lines.length === 0 ? undefined : lines.join('');
}

/**
 * Gemini's 400 for a `thinkingBudget` outside the model's documented range (2.5 Pro 128..32768 and no 0; 2.5
 * Flash 0..24576; 2.5 Flash-Lite 0 or 512..24576; -1 is dynamic thinking), with Google's messages (e.g.
 * RooCodeInc/Roo-Code#4399); undefined when the budget is accepted or the model is not a 2.5 one.
 * @see https://ai.google.dev/gemini-api/docs/thinking#set-budget
 */
function invalidThinkingBudget(model: string, body: unknown): string | undefined {
  const budget = (body as { generationConfig?: { thinkingConfig?: { thinkingBudget?: unknown } } } | null)?.generationConfig?.thinkingConfig?.thinkingBudget;
  if (typeof budget !== 'number' || budget === -1) return undefined;
  const pro = model.includes('gemini-2.5-pro');
  const [min, max] = pro ? [128, 32_768] : model.includes('gemini-2.5-flash-lite') ? [512, 24_576] : model.includes('gemini-2.5-flash') ? [1, 24_576] : [];
  if (min === undefined || max === undefined) return undefined;
  if (budget === 0) return pro ? 'Budget 0 is invalid. This model only works in thinking mode.' : undefined;
  return Number.isInteger(budget) && budget >= min && budget <= max ? undefined : `The thinking budget (${budget}) is invalid.`;
}

/**
 * The levels Google refuses on a Gemini 3 model: Gemini 3 Pro takes only `low` and `high`, a later Pro
 * everything but `minimal`; Flash and Flash-Lite take all four.
 * @see https://ai.google.dev/gemini-api/docs/gemini-3#thinking_level
 */
function refusedLevels(model: string): readonly string[] {
  if (/(?:^|\/)gemini-3-pro(?:$|-(?!image))/.test(model)) return ['minimal', 'medium'];
  return /(?:^|\/)gemini-\d+\.\d+-pro(?:$|-)/.test(model) ? ['minimal'] : [];
}

/**
 * Gemini's 400 for a `thinkingConfig` that names both a level and a budget (Google's words, as reported in
 * sterlp/eclipse-peon-ai#115), a level the model does not take (Google's words for `medium` on 3 Pro, as
 * reported in egoist/chatwise-releases#1206 and heyhuynhgiabuu/proxypal#170), or a level on a 2.5 model,
 * which takes budgets only (Google documents the error, not its words: the message here is the fake's own);
 * undefined otherwise.
 * @see https://ai.google.dev/gemini-api/docs/thinking#thinking-levels
 */
function invalidThinkingLevel(model: string, body: unknown): string | undefined {
  const config = (body as { generationConfig?: { thinkingConfig?: { thinkingBudget?: unknown; thinkingLevel?: unknown } } } | null)?.generationConfig?.thinkingConfig;
  if (config?.thinkingLevel === undefined) return undefined;
  if (config.thinkingBudget !== undefined) return 'You can only set only one of thinking budget and thinking level.';
  const level = String(config.thinkingLevel).toLowerCase();
  if (refusedLevels(model).includes(level)) return `Thinking level ${level.toUpperCase()} is not supported for this model. Please retry with other thinking level.`;
  return /gemini-2\.5/.test(model) ? 'fake upstream: thinking level is not supported by this model; use a thinking budget.' : undefined;
}

function googleErrorBody(status: number, message?: string): { error: { code: number; message: string; status: string } } {
  const known = googleStatuses[status] ?? { status: status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT', message: 'Error' };
  return { error: { code: status, message: message ?? known.message, status: known.status } };
}

// `models/{model}:{method}`, with any prefix: `/v1beta/models/…` (Gemini API) or `/v1/projects/…/models/…` (Vertex).
const modelMethodPattern = /\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

/**
 * The Gemini generateContent wire format: `data:` SSE lines (with `?alt=sse`), no event names, no terminator.
 * @see https://ai.google.dev/api/generate-content
 */
export function geminiFormat(options: { lineEnding?: SseLineEnding } = {}): WireFormat {
  const lineEnding = options.lineEnding ?? '\n';
  return {
    fixtureVendor: 'google',
    route(method, path) {
      const match = modelMethodPattern.exec(path);
      if (method !== 'POST' || match === null) return undefined;
      const [, model = '', operation = ''] = match;
      return { operation, params: { model: decodeURIComponent(model) }, streamingPath: operation === 'streamGenerateContent' };
    },
    answerDirectly(request) {
      if (request.operation === 'streamGenerateContent' && request.query.alt !== 'sse') {
        // Without alt=sse Google streams one JSON array, which this fake does not model.
        return { status: 400, body: googleErrorBody(400, 'fake upstream: streamGenerateContent needs ?alt=sse') };
      }
      if (request.operation === 'countTokens') return { status: 200, body: { totalTokens: 12 } };
      const badBudget = invalidThinkingLevel(request.params.model ?? '', request.body) ?? invalidThinkingBudget(request.params.model ?? '', request.body);
      if (badBudget !== undefined) return { status: 400, body: googleErrorBody(400, badBudget) };
      const badNames = invalidFunctionNames(request.body);
      if (badNames !== undefined) return { status: 400, body: googleErrorBody(400, badNames) };
      const unanswered = unansweredFunctionCalls(request.body);
      if (unanswered !== undefined) return { status: 400, body: googleErrorBody(400, unanswered) };
      return undefined;
    },
    streamContentType: 'text/event-stream',
    encodeEvent: (payload) => encodeSseFrame({ data: payload, lineEnding }),
    errorFor(status, message): VendorError {
      return { body: googleErrorBody(status, message), headers: {} };
    },
    // A failure after the stream started arrives as a data line holding the `error` object (the AI SDK reads it so).
    streamErrorFor: (status, message) => encodeSseFrame({ data: googleErrorBody(status, message), lineEnding }),
  };
}

/**
 * Starts a fake Gemini API: `POST /v1beta/models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse`. `baseURL` is origin + `/v1beta`, as `createGoogleGenerativeAI` expects.
 */
export function startFakeGemini(options: FakeGeminiOptions = {}): Promise<FakeUpstream> {
  return startFakeUpstream(geminiFormat(options), options, '/v1beta');
}
