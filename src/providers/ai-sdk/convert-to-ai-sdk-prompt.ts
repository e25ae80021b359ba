/**
 * Converts the system prompt and messages of an Anthropic Messages request into an AI SDK
 * `LanguageModelV4Prompt`. Anthropic keeps tool results inside user turns; the AI SDK wants them in `tool`
 * messages, so a user turn is split into consecutive `tool` and `user` messages in the original order. System
 * messages inside the conversation keep their position (see `convert-to-ai-sdk-system.ts`), except that one
 * falling between an assistant's tool calls and their results moves right after those results, since every
 * vendor wants results to follow their calls directly. Cache breakpoints from the plan become the vendor's
 * native marker on the part they stand on.
 */
import type {
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolCallPart,
  LanguageModelV4ToolResultPart,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import type {
  AssistantMessageParam,
  CacheControl,
  ContentBlockParam,
  DocumentBlockParam,
  ImageBlockParam,
  MessageRequest,
  RedactedThinkingBlockParam,
  SearchResultBlockParam,
  TextBlockParam,
  ThinkingBlockParam,
  ToolResultBlockParam,
  ToolUseBlockParam,
  UserMessageParam,
} from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';
import type { AiSdkVendorProfile } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { unsupportedBlockType, unsupportedFeature } from '#src/providers/ai-sdk/check-translatable-fields.ts';
import type { CacheBreakpointPlan } from '#src/request/cache-breakpoints.ts';
import { nearestKnownCacheLifetime } from '#src/request/cache-lifetime.ts';
import { decodeReasoningSignature } from '#src/providers/ai-sdk/reasoning-signature.ts';
import { convertSystemContent, type WithCache } from '#src/providers/ai-sdk/convert-to-ai-sdk-system.ts';
import {
  convertDocumentBlock,
  convertImageBlock,
  convertRedactedThinkingBlock,
  convertThinkingBlock,
  convertToolResultOutput,
  searchResultText,
  type UserPart,
} from '#src/providers/ai-sdk/convert-to-ai-sdk-parts.ts';
import { isSystemMessage, stringContent } from '#src/request/message-content.ts';

type AssistantPart = Extract<LanguageModelV4Message, { role: 'assistant' }>['content'][number];

/** Arguments of `convertToAiSdkPrompt`. */
export interface ConvertToAiSdkPromptOptions {
  request: Pick<MessageRequest, 'system' | 'messages' | 'tools'>;
  profile: AiSdkVendorProfile;
  cachePlan: CacheBreakpointPlan;
}

// A cache marker a vendor with explicit caching can read: Anthropic's `ephemeral`, with a lifetime of Anthropic's
// shape (one it does not know goes as the nearest it does).
function isReadableMarker(control: CacheControl): boolean {
  const known = control.type === 'ephemeral' && nearestKnownCacheLifetime(control.ttl) !== undefined;
  return known && Object.keys(control).every((name) => name === 'type' || name === 'ttl');
}

/** Builds the AI SDK prompt; what the vendor cannot express is a 400 naming it, documented drops come back as warnings. */
export function convertToAiSdkPrompt({ request, profile, cachePlan }: ConvertToAiSdkPromptOptions): { value: LanguageModelV4Prompt; warnings: string[] } {
  const warnings: string[] = [];
  const prompt: LanguageModelV4Prompt = [];
  const withCache: WithCache = (anchor) => {
    const control = cachePlan.breakpoints.get(anchor);
    if (!control) return {};
    const marker = profile.cacheMarker(control);
    if (!marker) {
      noteOnce(warnings, `cache_control dropped: ${profile.label} caches prompts automatically, without breakpoints`);
      return {};
    }
    if (!isReadableMarker(control)) {
      noteOnce(warnings, `cache_control ${JSON.stringify(control)} dropped: not a marker ${profile.label} can read`);
      return {};
    }
    const lifetime = nearestKnownCacheLifetime(control.ttl);
    if (control.ttl !== undefined && control.ttl !== lifetime) noteOnce(warnings, `cache_control ttl ${control.ttl} sent to ${profile.label} as ${lifetime}: the nearest lifetime it knows`);
    return { providerOptions: marker };
  };

  prompt.push(...convertSystemContent({ content: request.system, anchor: request, placement: 'leading', profile, withCache, path: 'system' }));
  const definedTools = new Set((request.tools ?? []).flatMap((tool) => (typeof tool.name === 'string' ? [tool.name] : [])));
  const context: BlockContext = { profile, warnings, toolNames: new Map(), definedTools, withCache };
  let started = false;
  // System messages that arrived after an assistant's tool calls, waiting for the results of those calls.
  let deferred: LanguageModelV4Message[] = [];
  let awaitingResults = false;
  // The position of each tool call of the last assistant turn, which its results are sent in.
  let callOrder = new Map<string, number>();
  request.messages.forEach((message, index) => {
    const path = `messages[${index}].content`;
    if (isSystemMessage(message)) {
      const converted = convertSystemContent({ content: message.content, anchor: message, placement: started ? 'later' : 'leading', profile, withCache, path });
      if (awaitingResults) deferred.push(...converted);
      else prompt.push(...converted);
      return;
    }
    if (message.role === 'user') {
      started = true;
      const converted = inCallOrder(convertUserMessage(message as UserMessageParam, path, context), callOrder);
      const results = converted.findIndex((item) => item.role !== 'tool');
      const split = results === -1 ? converted.length : results;
      prompt.push(...converted.slice(0, split), ...deferred, ...converted.slice(split));
      deferred = [];
      awaitingResults = false;
      return;
    }
    if (message.role === 'assistant') {
      started = true;
      prompt.push(...deferred);
      deferred = [];
      const parts = convertAssistantMessage(message as AssistantMessageParam, path, context);
      prompt.push({ role: 'assistant', content: parts, ...(stringContent(message) !== undefined ? withCache(message) : {}) });
      awaitingResults = parts.some((part) => part.type === 'tool-call');
      callOrder = new Map(parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : [])).map((id, position) => [id, position]));
      return;
    }
    throw unsupportedFeature(`role ${message.role} (messages[${index}])`, profile);
  });
  prompt.push(...deferred);
  return { value: prompt, warnings };
}

interface BlockContext {
  profile: AiSdkVendorProfile;
  warnings: string[];
  toolNames: Map<string, string>;
  /** The names of the request's tools, which a `tool_reference` in a tool result must name. */
  definedTools: ReadonlySet<string>;
  withCache: WithCache;
}

function convertAssistantMessage(message: AssistantMessageParam, path: string, context: BlockContext): AssistantPart[] {
  const { profile, warnings, toolNames, withCache } = context;
  if (typeof message.content === 'string') return [{ type: 'text', text: message.content }];
  const parts: AssistantPart[] = [];
  // A vendor's signature for the next tool call or text, carried by an empty thinking block (Gemini).
  let toolSignature: SharedV4ProviderOptions | undefined;
  let textSignature: SharedV4ProviderOptions | undefined;
  message.content.forEach((block, index) => {
    switch (block.type) {
      case 'text': {
        const cache = withCache(block).providerOptions;
        const providerOptions = textSignature || cache ? { ...cache, ...textSignature } : undefined;
        textSignature = undefined;
        parts.push({ type: 'text', text: (block as TextBlockParam).text, ...(providerOptions ? { providerOptions } : {}) });
        break;
      }
      case 'tool_use': {
        const toolUse = block as ToolUseBlockParam;
        toolNames.set(toolUse.id, toolUse.name);
        const cache = withCache(block).providerOptions;
        const providerOptions = toolSignature || cache ? { ...cache, ...toolSignature } : undefined;
        toolSignature = undefined;
        const call: LanguageModelV4ToolCallPart = { type: 'tool-call', toolCallId: toolUse.id, toolName: toolUse.name, input: toolUse.input, ...(providerOptions ? { providerOptions } : {}) };
        parts.push(call);
        break;
      }
      case 'thinking': {
        const signature = decodeReasoningSignature((block as ThinkingBlockParam).signature);
        if (signature?.target === 'tool_use') {
          if (signature.namespace === profile.namespace) toolSignature = { [profile.namespace]: signature.metadata };
          break;
        }
        if (signature?.target === 'text') {
          if (signature.namespace === profile.namespace) textSignature = { [profile.namespace]: signature.metadata };
          break;
        }
        const reasoning = convertThinkingBlock(block as ThinkingBlockParam, profile);
        if (reasoning) parts.push(reasoning);
        break;
      }
      case 'redacted_thinking': {
        const reasoning = convertRedactedThinkingBlock(block as RedactedThinkingBlockParam, profile, warnings);
        if (reasoning) parts.push(reasoning);
        break;
      }
      case 'fallback':
        // Where a refused model's output gave way to the next one (src/messages/refused-hops.ts): it carries
        // nothing for the model, and Anthropic does not render it into the prompt either.
        break;
      default:
        throw unsupportedBlock(block.type, 'assistant', `${path}[${index}]`, profile);
    }
  });
  return parts;
}

function convertUserMessage(message: UserMessageParam, path: string, context: BlockContext): LanguageModelV4Message[] {
  const { profile, warnings, toolNames, definedTools, withCache } = context;
  if (typeof message.content === 'string') return [{ role: 'user', content: [{ type: 'text', text: message.content }], ...withCache(message) }];
  const messages: LanguageModelV4Message[] = [];
  let userParts: UserPart[] = [];
  let toolParts: LanguageModelV4ToolResultPart[] = [];
  const flushUser = (): void => {
    if (userParts.length > 0) messages.push({ role: 'user', content: userParts });
    userParts = [];
  };
  const flushTool = (): void => {
    if (toolParts.length > 0) messages.push({ role: 'tool', content: toolParts });
    toolParts = [];
  };
  message.content.forEach((block: ContentBlockParam, index) => {
    if (block.type === 'tool_result') {
      flushUser();
      const result = block as ToolResultBlockParam;
      const toolName = toolNames.get(result.tool_use_id);
      if (toolName === undefined) {
        throw new BadRequestError(`tool_result ${result.tool_use_id} does not answer a tool_use of an earlier assistant turn`);
      }
      const output = convertToolResultOutput(result, profile, definedTools);
      toolParts.push({ type: 'tool-result', toolCallId: result.tool_use_id, toolName, output, ...withCache(block) });
      return;
    }
    flushTool();
    switch (block.type) {
      case 'text':
        userParts.push({ type: 'text', text: (block as TextBlockParam).text, ...withCache(block) });
        break;
      case 'image':
        userParts.push({ ...convertImageBlock(block as ImageBlockParam, profile), ...withCache(block) });
        break;
      case 'document': {
        // A content document may be several parts: its marker goes on the last, closing the cached prefix.
        const parts = convertDocumentBlock(block as DocumentBlockParam, profile);
        const last = parts.pop();
        userParts.push(...parts, ...(last ? [{ ...last, ...withCache(block) }] : []));
        break;
      }
      case 'search_result':
        userParts.push({ type: 'text', text: searchResultText(block as SearchResultBlockParam), ...withCache(block) });
        break;
      default:
        throw unsupportedBlock(block.type, 'user', `${path}[${index}]`, profile);
    }
  });
  flushTool();
  flushUser();
  return messages;
}

/**
 * Tool messages with their results in the order of the calls they answer. Clients may answer parallel calls
 * in any order (the order their tools finished), but Gemini pairs each `functionResponse` with the call at
 * its position (a 400 where ids are checked, silently mismatched results where they are not); results of
 * unknown calls keep their place after the known ones.
 */
function inCallOrder(messages: LanguageModelV4Message[], callOrder: ReadonlyMap<string, number>): LanguageModelV4Message[] {
  const position = (part: Extract<LanguageModelV4Message, { role: 'tool' }>['content'][number]) => (part.type === 'tool-result' ? callOrder.get(part.toolCallId) : undefined) ?? callOrder.size;
  return messages.map((message) => (message.role === 'tool' ? { ...message, content: [...message.content].sort((a, b) => position(a) - position(b)) } : message));
}

function unsupportedBlock(type: string, role: string, path: string, profile: AiSdkVendorProfile) {
  return unsupportedBlockType(type, `${role} messages (${path})`, profile);
}

function noteOnce(warnings: string[], warning: string): void {
  if (!warnings.includes(warning)) warnings.push(warning);
}
