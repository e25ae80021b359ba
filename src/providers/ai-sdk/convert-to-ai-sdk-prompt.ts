/**
 * Converts the system prompt and messages of an Anthropic Messages request into an AI SDK
 * `LanguageModelV4Prompt`. Anthropic keeps tool results inside user turns; the AI SDK wants them in `tool`
 * messages, so a user turn is split into consecutive `tool` and `user` messages in the original order.
 * Cache breakpoints from the plan become the vendor's native marker on the part they stand on.
 */
import type {
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolCallPart,
  LanguageModelV4ToolResultPart,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import type {
  ContentBlockParam,
  DocumentBlockParam,
  ImageBlockParam,
  MessageParam,
  MessageRequest,
  RedactedThinkingBlockParam,
  TextBlockParam,
  ThinkingBlockParam,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';
import type { AiSdkVendorProfile } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import type { CacheBreakpointPlan } from '#src/providers/ai-sdk/plan-cache-breakpoints.ts';
import { decodeReasoningSignature } from '#src/providers/ai-sdk/reasoning-signature.ts';
import {
  convertDocumentBlock,
  convertImageBlock,
  convertRedactedThinkingBlock,
  convertThinkingBlock,
  convertToolResultOutput,
  type UserPart,
} from '#src/providers/ai-sdk/convert-to-ai-sdk-parts.ts';

type AssistantPart = Extract<LanguageModelV4Message, { role: 'assistant' }>['content'][number];

/** Arguments of `convertToAiSdkPrompt`. */
export interface ConvertToAiSdkPromptOptions {
  request: Pick<MessageRequest, 'system' | 'messages'>;
  profile: AiSdkVendorProfile;
  cachePlan: CacheBreakpointPlan;
}

/** Builds the AI SDK prompt; unsupported blocks are a 400, documented drops come back as warnings. */
export function convertToAiSdkPrompt({ request, profile, cachePlan }: ConvertToAiSdkPromptOptions): { value: LanguageModelV4Prompt; warnings: string[] } {
  const warnings: string[] = [];
  const prompt: LanguageModelV4Prompt = [];
  const withCache = (anchor: object): { providerOptions?: SharedV4ProviderOptions } => {
    const control = cachePlan.breakpoints.get(anchor);
    if (!control) return {};
    const marker = profile.cacheMarker(control);
    if (!marker) {
      noteOnce(warnings, `cache_control dropped: ${profile.label} caches prompts automatically, without breakpoints`);
      return {};
    }
    return { providerOptions: marker };
  };

  if (typeof request.system === 'string') {
    if (request.system !== '') prompt.push({ role: 'system', content: request.system });
  } else {
    for (const block of request.system ?? []) prompt.push({ role: 'system', content: block.text, ...withCache(block) });
  }

  const toolNames = new Map<string, string>();
  for (const message of request.messages) {
    if (typeof message.content === 'string') {
      const part = { type: 'text' as const, text: message.content };
      prompt.push(message.role === 'user' ? { role: 'user', content: [part], ...withCache(message) } : { role: 'assistant', content: [part], ...withCache(message) });
      continue;
    }
    if (message.role === 'assistant') {
      prompt.push({ role: 'assistant', content: convertAssistantBlocks(message.content, { profile, warnings, toolNames, withCache }) });
    } else {
      prompt.push(...convertUserBlocks(message, { profile, warnings, toolNames, withCache }));
    }
  }
  return { value: prompt, warnings };
}

interface BlockContext {
  profile: AiSdkVendorProfile;
  warnings: string[];
  toolNames: Map<string, string>;
  withCache: (anchor: object) => { providerOptions?: SharedV4ProviderOptions };
}

function convertAssistantBlocks(blocks: ContentBlockParam[], context: BlockContext): AssistantPart[] {
  const { profile, warnings, toolNames, withCache } = context;
  const parts: AssistantPart[] = [];
  // A vendor's signature for the next tool call, carried by an empty thinking block (Gemini).
  let toolSignature: SharedV4ProviderOptions | undefined;
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: (block as TextBlockParam).text, ...withCache(block) });
        break;
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
        const reasoning = convertThinkingBlock(block as ThinkingBlockParam, profile);
        if (reasoning) parts.push(reasoning);
        break;
      }
      case 'redacted_thinking': {
        const reasoning = convertRedactedThinkingBlock(block as RedactedThinkingBlockParam, profile, warnings);
        if (reasoning) parts.push(reasoning);
        break;
      }
      default:
        throw unsupportedBlock(block.type, 'assistant', profile);
    }
  }
  return parts;
}

function convertUserBlocks(message: MessageParam, context: BlockContext): LanguageModelV4Message[] {
  const { profile, warnings, toolNames, withCache } = context;
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
  for (const block of message.content as ContentBlockParam[]) {
    if (block.type === 'tool_result') {
      flushUser();
      const result = block as ToolResultBlockParam;
      const toolName = toolNames.get(result.tool_use_id);
      if (toolName === undefined) {
        throw new BadRequestError(`tool_result ${result.tool_use_id} does not answer a tool_use of an earlier assistant turn`);
      }
      const output = convertToolResultOutput(result, profile, warnings);
      toolParts.push({ type: 'tool-result', toolCallId: result.tool_use_id, toolName, output, ...withCache(block) });
      continue;
    }
    flushTool();
    switch (block.type) {
      case 'text':
        userParts.push({ type: 'text', text: (block as TextBlockParam).text, ...withCache(block) });
        break;
      case 'image':
        userParts.push({ ...convertImageBlock(block as ImageBlockParam, profile), ...withCache(block) });
        break;
      case 'document':
        userParts.push({ ...convertDocumentBlock(block as DocumentBlockParam, profile, warnings), ...withCache(block) });
        break;
      default:
        throw unsupportedBlock(block.type, 'user', profile);
    }
  }
  flushTool();
  flushUser();
  return messages;
}

function unsupportedBlock(type: string, role: string, profile: AiSdkVendorProfile): BadRequestError {
  return new BadRequestError(`${type} blocks in ${role} messages are not supported by ${profile.label}`);
}

function noteOnce(warnings: string[], warning: string): void {
  if (!warnings.includes(warning)) warnings.push(warning);
}
