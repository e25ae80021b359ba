/**
 * Converts a whole Anthropic Messages request into AI SDK `LanguageModelV4CallOptions` for one vendor:
 * prompt, tools and tool choice, sampling, stop sequences, reasoning, structured output and cache
 * breakpoints. Gateway-only fields (fallbacks, provider, plugins, session_id, trace, speed, ...) are the
 * router's and are not read here. Every field is checked first (`check-translatable-fields.ts`): what the
 * vendor cannot express is an `UnsupportedFeatureError` naming it, so the attempt runner tries the next endpoint.
 */
import { createHash } from 'node:crypto';
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { LanguageModelV4CallOptions, LanguageModelV4FunctionTool, LanguageModelV4ToolChoice, SharedV4ProviderOptions } from '@ai-sdk/provider';
import type { CustomTool, MessageRequest, OutputConfig, ToolChoice } from '#src/api-types.ts';
import { isClaudeOnBedrock, type AiSdkVendorProfile } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { checkTranslatableFields, droppedFieldList, unsupportedFeature } from '#src/providers/ai-sdk/check-translatable-fields.ts';
import { planCacheBreakpoints, type CacheBreakpointPlan } from '#src/request/cache-breakpoints.ts';
import { withinOutputLimit } from '#src/request/output-limit.ts';
import { convertToAiSdkPrompt } from '#src/providers/ai-sdk/convert-to-ai-sdk-prompt.ts';
import { convertToAiSdkReasoning } from '#src/providers/ai-sdk/convert-to-ai-sdk-reasoning.ts';
import { fitGeminiThinkingBudget } from '#src/providers/ai-sdk/gemini-thinking-budget.ts';
import { convertToolPartsToText } from '#src/providers/ai-sdk/convert-tool-parts-to-text.ts';
import { fitsOpenAiStrictMode } from '#src/providers/ai-sdk/openai-strict-schema.ts';

/** The request fields the translator reads (a count-tokens request has no `max_tokens`). */
export type TranslatableRequest = Omit<MessageRequest, 'max_tokens'> & { max_tokens?: number };

/** Call options without the per-attempt transport fields (`abortSignal`, `headers`), which the adapter adds. */
export type AiSdkCallOptions = Omit<LanguageModelV4CallOptions, 'abortSignal' | 'headers'>;

// The catalog prices OpenAI's fast variants as Priority processing (`service_tier: priority`).
const PRIORITY_FAMILIES = new Set(['openai-chat', 'openai-responses', 'azure']);

// The families whose packages send a structured-output schema in OpenAI's strict mode unless told otherwise
// (the compatible vendors that take schemas, Groq among them, copy that mode and its rules).
const STRICT_SCHEMA_FAMILIES = new Set(['openai-chat', 'openai-responses', 'azure', 'openai-compatible']);

/** Builds the call options for `doGenerate` / `doStream`; a feature the vendor lacks is a 400 naming it. */
export function convertToAiSdkCallOptions({
  request: asked,
  profile,
  upstreamModel = '',
  fast = false,
  outputLimit,
  takesJsonSchema = true,
}: {
  request: TranslatableRequest;
  profile: AiSdkVendorProfile;
  /** The vendor's model id, for the mappings that depend on it (Claude on Bedrock, Gemini's thinking levels). */
  upstreamModel?: string;
  /** `speed: fast` on an endpoint with a fast variant: OpenAI's priority processing. */
  fast?: boolean;
  /** The endpoint's largest `max_tokens` (catalog `max_output_tokens`), when known. */
  outputLimit?: number | undefined;
  /** Whether the vendor takes a structured-output schema (an OpenAI-compatible one may have JSON mode only). */
  takesJsonSchema?: boolean;
}): {
  value: AiSdkCallOptions;
  warnings: string[];
  /** The request's fields the vendor is not sent, as `droppedFieldList` gives them (empty when none). */
  dropped: string[];
} {
  const { warnings, dropped } = checkTranslatableFields(asked, profile);
  const limited = withinOutputLimit(asked, outputLimit);
  warnings.push(...limited.warnings);
  const request = limited.value;
  const cachePlan = planCacheBreakpoints(request);
  const prompt = convertToAiSdkPrompt({ request, profile, cachePlan });
  warnings.push(...prompt.warnings);
  const maxOutputTokens = outputTokenLimit(request, profile, upstreamModel);
  const mapped = convertToAiSdkReasoning({ request, profile, upstreamModel });
  const reasoning = profile.reasoningStyle === 'google-thinking-config' ? fitGeminiThinkingBudget({ reasoning: mapped.value, modelId: upstreamModel, maxOutputTokens }) : mapped;
  warnings.push(...mapped.warnings, ...(reasoning === mapped ? [] : reasoning.warnings));

  const tools = convertTools(request.tools ?? [], profile, cachePlan, warnings);
  const vendorOptions: Record<string, string | boolean> = {};
  if (profile.family === 'openai-responses') vendorOptions.store = false; // the gateway is stateless; reasoning replays via encrypted content
  if (fast && PRIORITY_FAMILIES.has(profile.family)) vendorOptions.serviceTier = 'priority';
  const toolChoice = request.tool_choice ? convertToolChoice(request.tool_choice, profile) : undefined;
  let claudeOptions: SharedV4ProviderOptions | undefined;
  if ((request.tool_choice as { disable_parallel_tool_use?: boolean } | undefined)?.disable_parallel_tool_use) {
    // Converse has no such switch, but Claude on Bedrock reads Anthropic's own `tool_choice`, which the
    // Bedrock package builds from its `anthropic` options.
    if (isClaudeOnBedrock(profile, upstreamModel)) claudeOptions = { anthropic: { disableParallelToolUse: true } };
    else if (profile.family === 'bedrock' || profile.family === 'google') {
      warnings.push(`disable_parallel_tool_use dropped: not supported by ${profile.label}`);
      dropped.push('tool_choice.disable_parallel_tool_use');
    }
    // Unknown keys of the compatible namespace go into the body as they are: use the wire name there.
    else if (profile.family === 'openai-compatible') vendorOptions.parallel_tool_calls = false;
    else vendorOptions.parallelToolCalls = false;
  }
  // OpenAI asks for a stable, non-identifying end-user id of at most 64 characters; clients fill `user_id` with
  // anything (Claude Code: a JSON text with a device fingerprint), so only its SHA-256 leaves the gateway.
  const userId = request.metadata?.user_id;
  if (userId && profile.reasoningStyle === 'openai-effort') vendorOptions.safetyIdentifier = safetyIdentifier(userId);

  // Converse takes tool calls and results only with active tools; without, they go as text rather than be dropped.
  const withoutActiveTools = profile.family === 'bedrock' && (tools.length === 0 || toolChoice?.type === 'none');
  const format = jsonSchemaFormat(request.output_config?.format, profile);
  // JSON mode alone (the package's `json_object` fallback) would drop the schema: the answer would change.
  if (format && !takesJsonSchema) throw unsupportedFeature('output_config.format (a JSON schema; this vendor has JSON mode only)', profile);
  if (format && STRICT_SCHEMA_FAMILIES.has(profile.family) && !fitsOpenAiStrictMode(format.schema)) {
    vendorOptions.strictJsonSchema = false;
    warnings.push(`output_config.format sent without strict mode: ${profile.label} takes a schema strictly only when every object has additionalProperties false and every property required`);
  }
  const value: AiSdkCallOptions = {
    prompt: withoutActiveTools ? convertToolPartsToText(prompt.value) : prompt.value,
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.top_p !== undefined ? { topP: request.top_p } : {}),
    ...(request.top_k !== undefined ? { topK: request.top_k } : {}),
    ...(request.stop_sequences?.length ? { stopSequences: request.stop_sequences } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(toolChoice && tools.length > 0 ? { toolChoice } : {}),
    ...(format ? { responseFormat: { type: 'json' as const, schema: format.schema as JSONSchema7, name: 'response' } } : {}),
    ...(reasoning.value.reasoning ? { reasoning: reasoning.value.reasoning } : {}),
  };
  const providerOptions = mergeProviderOptions(reasoning.value.providerOptions, Object.keys(vendorOptions).length > 0 ? { [profile.namespace]: vendorOptions } : undefined, claudeOptions);
  if (providerOptions) value.providerOptions = providerOptions;
  return { value, warnings, dropped: dropped.length > 0 ? droppedFieldList(dropped) : dropped };
}

/**
 * The output limit sent. Anthropic's `max_tokens` includes the thinking budget; for Claude on Bedrock the AI
 * SDK adds the budget on top of `maxOutputTokens`, so the budget is taken off first.
 */
function outputTokenLimit(request: TranslatableRequest, profile: AiSdkVendorProfile, upstreamModel: string): number | undefined {
  const maxTokens = request.max_tokens;
  const budget = request.thinking?.type === 'enabled' ? (request.thinking as { budget_tokens: number }).budget_tokens : undefined;
  if (maxTokens === undefined || budget === undefined) return maxTokens;
  if (!isClaudeOnBedrock(profile, upstreamModel)) return maxTokens;
  return Math.max(1, maxTokens - budget);
}

/**
 * A tool's input schema as every vendor takes it: a bare `{"type": "object"}` (a tool without arguments, which
 * Anthropic accepts) gets `properties: {}`, as OpenAI refuses an object schema without them with a 400 (object
 * schema missing properties); the others read both alike.
 */
function functionSchema(schema: CustomTool['input_schema']): JSONSchema7 {
  const object = schema as JSONSchema7;
  return object.type === 'object' && object.properties === undefined ? { ...object, properties: {} } : object;
}

function convertTools(tools: NonNullable<MessageRequest['tools']>, profile: AiSdkVendorProfile, cachePlan: CacheBreakpointPlan, warnings: string[]): LanguageModelV4FunctionTool[] {
  const converted: LanguageModelV4FunctionTool[] = [];
  for (const tool of tools) {
    // A `type` of null is a client tool, as Anthropic reads it.
    const type = ('type' in tool ? tool.type : undefined) ?? undefined;
    if (type === undefined || type === 'custom') {
      const custom = tool as CustomTool;
      if (cachePlan.breakpoints.has(tool)) warnings.push(`cache_control on tool ${custom.name} dropped: ${profile.label} has no tool cache breakpoints`);
      converted.push({
        type: 'function',
        name: custom.name,
        ...describedWithExamples(custom),
        inputSchema: functionSchema(custom.input_schema),
        ...(custom.strict !== undefined ? { strict: toolStrictness(custom, profile, warnings) } : {}),
      });
    } else if (type.startsWith('gateway:')) {
      // Gateway server tools are run by the gateway's own tool loop, which hands the adapter plain tools.
      warnings.push(`gateway tool ${type} not sent upstream: it is run by the gateway`);
    } else {
      throw unsupportedFeature(`tool type ${type} (an Anthropic tool)`, profile);
    }
  }
  return converted;
}

/**
 * A tool's description with its `input_examples` appended, one JSON line each after `Input Examples:` (the AI
 * SDK's addToolInputExamplesMiddleware format): no translated vendor has a field for examples, and their
 * packages drop the AI SDK's `inputExamples` without a word, so the model would never see them.
 */
function describedWithExamples(tool: CustomTool): { description?: string } {
  const examples = tool.input_examples ?? [];
  if (examples.length === 0) return tool.description !== undefined ? { description: tool.description } : {};
  const section = `Input Examples:\n${examples.map((example) => JSON.stringify(example)).join('\n')}`;
  return { description: tool.description ? `${tool.description}\n\n${section}` : section };
}

/** A tool's `strict`, off where OpenAI's strict mode would refuse its schema (an optional parameter). */
function toolStrictness(tool: CustomTool, profile: AiSdkVendorProfile, warnings: string[]): boolean {
  if (tool.strict !== true || !STRICT_SCHEMA_FAMILIES.has(profile.family) || fitsOpenAiStrictMode(tool.input_schema)) return tool.strict === true;
  warnings.push(`tools.${tool.name}.strict not forwarded: ${profile.label} takes a tool strictly only when every object has additionalProperties false and every property required`);
  return false;
}

/** Anthropic `tool_choice` to the AI SDK's: `any` is `required`; a type the translators do not know is a 400. */
export function convertToolChoice(choice: ToolChoice, profile: Pick<AiSdkVendorProfile, 'label'>): LanguageModelV4ToolChoice {
  switch (choice.type) {
    case 'auto':
      return { type: 'auto' };
    case 'any':
      return { type: 'required' };
    case 'none':
      return { type: 'none' };
    case 'tool':
      return { type: 'tool', toolName: (choice as { name: string }).name };
    default:
      throw unsupportedFeature(`tool_choice type ${choice.type}`, profile);
  }
}

/** The structured-output schema, for the one format type the translators know. */
function jsonSchemaFormat(format: OutputConfig['format'], profile: AiSdkVendorProfile): { schema: unknown } | undefined {
  if (format === undefined || format === null) return undefined;
  if (format.type !== 'json_schema') throw unsupportedFeature(`output_config.format type ${format.type}`, profile);
  return format as { schema: unknown };
}

function mergeProviderOptions(...all: Array<SharedV4ProviderOptions | undefined>): SharedV4ProviderOptions | undefined {
  const merged: SharedV4ProviderOptions = {};
  for (const options of all) {
    for (const [namespace, values] of Object.entries(options ?? {})) merged[namespace] = { ...merged[namespace], ...values };
  }
  return Object.keys(merged).length > 0 ? merged : undefined;
}

/** The `safety_identifier` sent to OpenAI for a `metadata.user_id`: its SHA-256, 64 lowercase hex characters. */
export function safetyIdentifier(userId: string): string {
  return createHash('sha256').update(userId).digest('hex');
}
