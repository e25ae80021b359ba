/**
 * Converts a whole Anthropic Messages request into AI SDK `LanguageModelV4CallOptions` for one vendor:
 * prompt, tools and tool choice, sampling, stop sequences, reasoning, structured output and cache
 * breakpoints. Gateway-only fields (fallbacks, provider, plugins, session_id, trace, speed, ...) are the
 * router's and are not read here.
 */
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { LanguageModelV4CallOptions, LanguageModelV4FunctionTool, LanguageModelV4ToolChoice, SharedV4ProviderOptions } from '@ai-sdk/provider';
import type { CustomTool, MessageRequest, ToolChoice } from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';
import type { AiSdkVendorProfile } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { planCacheBreakpoints } from '#src/providers/ai-sdk/plan-cache-breakpoints.ts';
import { convertToAiSdkPrompt } from '#src/providers/ai-sdk/convert-to-ai-sdk-prompt.ts';
import { convertToAiSdkReasoning } from '#src/providers/ai-sdk/convert-to-ai-sdk-reasoning.ts';

/** The request fields the translator reads (a count-tokens request has no `max_tokens`). */
export type TranslatableRequest = Omit<MessageRequest, 'max_tokens'> & { max_tokens?: number };

/** Call options without the per-attempt transport fields (`abortSignal`, `headers`), which the adapter adds. */
export type AiSdkCallOptions = Omit<LanguageModelV4CallOptions, 'abortSignal' | 'headers'>;

// The catalog prices OpenAI's fast variants as Priority processing (`service_tier: priority`).
const PRIORITY_FAMILIES = new Set(['openai-chat', 'openai-responses', 'azure']);

/** Builds the call options for `doGenerate` / `doStream`; a feature the vendor lacks is a 400 naming it. */
export function convertToAiSdkCallOptions({
  request,
  profile,
  upstreamModel = '',
  fast = false,
}: {
  request: TranslatableRequest;
  profile: AiSdkVendorProfile;
  /** The vendor's model id, for the one mapping that depends on it (Claude on Bedrock, below). */
  upstreamModel?: string;
  /** `speed: fast` on an endpoint with a fast variant: OpenAI's priority processing. */
  fast?: boolean;
}): {
  value: AiSdkCallOptions;
  warnings: string[];
} {
  const cachePlan = planCacheBreakpoints(request);
  const warnings = [...cachePlan.warnings];
  const prompt = convertToAiSdkPrompt({ request, profile, cachePlan });
  warnings.push(...prompt.warnings);
  const reasoning = convertToAiSdkReasoning({ request, profile });
  warnings.push(...reasoning.warnings);

  const tools = convertTools(request.tools ?? [], profile, warnings);
  const vendorOptions: Record<string, string | boolean> = {};
  if (profile.family === 'openai-responses') vendorOptions.store = false; // the gateway is stateless; reasoning replays via encrypted content
  if (fast && PRIORITY_FAMILIES.has(profile.family)) vendorOptions.serviceTier = 'priority';
  if (request.tool_choice?.disable_parallel_tool_use) {
    if (profile.family === 'bedrock' || profile.family === 'google') warnings.push(`disable_parallel_tool_use dropped: not supported by ${profile.label}`);
    // Unknown keys of the compatible namespace go into the body as they are: use the wire name there.
    else if (profile.family === 'openai-compatible') vendorOptions.parallel_tool_calls = false;
    else vendorOptions.parallelToolCalls = false;
  }
  const userId = request.metadata?.user_id;
  if (userId && profile.reasoningStyle === 'openai-effort') vendorOptions.user = userId;
  if (request.context_management) warnings.push('context_management dropped: Anthropic context editing has no counterpart');

  const format = request.output_config?.format;
  const maxOutputTokens = outputTokenLimit(request, profile, upstreamModel);
  const value: AiSdkCallOptions = {
    prompt: prompt.value,
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.top_p !== undefined ? { topP: request.top_p } : {}),
    ...(request.top_k !== undefined ? { topK: request.top_k } : {}),
    ...(request.stop_sequences?.length ? { stopSequences: request.stop_sequences } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(request.tool_choice && tools.length > 0 ? { toolChoice: convertToolChoice(request.tool_choice) } : {}),
    ...(format ? { responseFormat: { type: 'json' as const, schema: format.schema as JSONSchema7, name: 'response' } } : {}),
    ...(reasoning.value.reasoning ? { reasoning: reasoning.value.reasoning } : {}),
  };
  const providerOptions = mergeProviderOptions(reasoning.value.providerOptions, Object.keys(vendorOptions).length > 0 ? { [profile.namespace]: vendorOptions } : undefined);
  if (providerOptions) value.providerOptions = providerOptions;
  return { value, warnings };
}

/**
 * Anthropic's `max_tokens` includes the thinking budget; for Claude on Bedrock the AI SDK adds the budget on
 * top of `maxOutputTokens`, so the budget is taken off first to send the client's own limit.
 */
function outputTokenLimit(request: TranslatableRequest, profile: AiSdkVendorProfile, upstreamModel: string): number | undefined {
  const budget = request.thinking?.type === 'enabled' ? request.thinking.budget_tokens : undefined;
  if (request.max_tokens === undefined || budget === undefined) return request.max_tokens;
  if (profile.family !== 'bedrock' || !upstreamModel.includes('anthropic')) return request.max_tokens;
  return Math.max(1, request.max_tokens - budget);
}

function convertTools(tools: NonNullable<MessageRequest['tools']>, profile: AiSdkVendorProfile, warnings: string[]): LanguageModelV4FunctionTool[] {
  const converted: LanguageModelV4FunctionTool[] = [];
  for (const tool of tools) {
    const type = 'type' in tool ? tool.type : undefined;
    if (type === undefined || type === 'custom') {
      const custom = tool as CustomTool;
      if (custom.cache_control) warnings.push(`cache_control on tool ${custom.name} dropped: ${profile.label} has no tool cache breakpoints`);
      converted.push({
        type: 'function',
        name: custom.name,
        ...(custom.description !== undefined ? { description: custom.description } : {}),
        inputSchema: custom.input_schema as JSONSchema7,
      });
    } else if (type.startsWith('gateway:')) {
      // Gateway server tools are run by the gateway's own tool loop, which hands the adapter plain tools.
      warnings.push(`gateway tool ${type} not sent upstream: it is run by the gateway`);
    } else {
      throw new BadRequestError(`tool type ${type} is an Anthropic server tool and is not supported by ${profile.label}`);
    }
  }
  return converted;
}

/** Anthropic `tool_choice` to the AI SDK's: `any` is `required`. */
export function convertToolChoice(choice: ToolChoice): LanguageModelV4ToolChoice {
  switch (choice.type) {
    case 'auto':
      return { type: 'auto' };
    case 'any':
      return { type: 'required' };
    case 'none':
      return { type: 'none' };
    case 'tool':
      return { type: 'tool', toolName: choice.name };
    default: {
      const unreachable: never = choice;
      throw new BadRequestError(`unknown tool_choice ${JSON.stringify(unreachable)}`);
    }
  }
}

function mergeProviderOptions(...all: Array<SharedV4ProviderOptions | undefined>): SharedV4ProviderOptions | undefined {
  const merged: SharedV4ProviderOptions = {};
  for (const options of all) {
    for (const [namespace, values] of Object.entries(options ?? {})) merged[namespace] = { ...merged[namespace], ...values };
  }
  return Object.keys(merged).length > 0 ? merged : undefined;
}
