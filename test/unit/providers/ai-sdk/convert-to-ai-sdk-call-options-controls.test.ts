/**
 * convertToAiSdkCallOptions on the request's controls: reasoning (thinking and effort) per vendor, structured
 * output, tool choice and parallel tool use, the end-user identifier, and `speed: fast`.
 */
import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { vendorProfile, type AiSdkFamily } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { convertToAiSdkCallOptions, safetyIdentifier } from '#src/providers/ai-sdk/convert-to-ai-sdk-call-options.ts';

function convert(family: AiSdkFamily, request: Partial<MessageRequest>, upstreamModel?: string) {
  return convertToAiSdkCallOptions({
    request: { model: 'vendor/model', max_tokens: 512, messages: [{ role: 'user', content: 'Hi' }], ...request },
    profile: vendorProfile(family),
    ...(upstreamModel ? { upstreamModel } : {}),
  });
}

const CLAUDE_ON_BEDROCK = 'us.anthropic.claude-sonnet-5-5';

const hi = { role: 'user', content: 'Hi' } as const;
const effortOnly = (effort: string) => ({ role: 'system', content: [], output_config: { effort } }) as const;

describe('reasoning, output and tool choice', () => {
  it.each([
    ['openai-chat', { thinking: { type: 'enabled', budget_tokens: 2048 } }, { reasoning: 'low' }],
    ['openai-chat', { thinking: { type: 'enabled', budget_tokens: 10_000 } }, { reasoning: 'medium' }],
    ['openai-responses', { thinking: { type: 'enabled', budget_tokens: 32_000 } }, { reasoning: 'high', providerOptions: { openai: { store: false } } }],
    ['openai-chat', { output_config: { effort: 'xhigh' } }, { reasoning: 'xhigh' }],
    ['openai-chat', { thinking: { type: 'disabled' } }, { reasoning: 'none' }],
    ['openai-compatible', { output_config: { effort: 'low' } }, { reasoning: 'low' }],
    ['openai-compatible', { thinking: { type: 'disabled' } }, {}],
    ['google', { max_tokens: 8192, thinking: { type: 'enabled', budget_tokens: 4096 } }, { providerOptions: { google: { thinkingConfig: { thinkingBudget: 4096, includeThoughts: true } } } }],
    ['google', { thinking: { type: 'adaptive' }, output_config: { effort: 'high' } }, { reasoning: 'high', providerOptions: { google: { thinkingConfig: { includeThoughts: true } } } }],
    ['google', { thinking: { type: 'disabled' } }, { reasoning: 'none' }],
    // Effort alone (Claude Code on other models) sets the level, without thought summaries.
    ['google', { output_config: { effort: 'high' } }, { reasoning: 'high' }],
    ['openai-responses', { output_config: { effort: 'high' } }, { reasoning: 'high', providerOptions: { openai: { store: false, reasoningSummary: null } } }],
    ['openai-responses', { thinking: { type: 'adaptive' }, output_config: { effort: 'high' } }, { reasoning: 'high', providerOptions: { openai: { store: false } } }],
    ['bedrock', { thinking: { type: 'enabled', budget_tokens: 2000 } }, { providerOptions: { bedrock: { reasoningConfig: { type: 'enabled', budgetTokens: 2000 } } } }],
    ['bedrock', { thinking: { type: 'adaptive' }, output_config: { effort: 'max' } }, { providerOptions: { bedrock: { reasoningConfig: { type: 'adaptive', maxReasoningEffort: 'max' } } } }],
    ['bedrock', { output_config: { effort: 'medium' } }, { reasoning: 'medium' }],
    // Per-message effort: the last system message setting one applies to the answer, over the top-level one.
    ['openai-chat', { output_config: { effort: 'high' }, messages: [hi, effortOnly('low')] }, { reasoning: 'low' }],
    ['openai-chat', { messages: [hi, effortOnly('low'), hi, effortOnly('xhigh'), hi] }, { reasoning: 'xhigh' }],
    ['openai-chat', { messages: [hi, effortOnly('low'), { role: 'system', content: 'Be brief.', output_config: { effort: null } }] }, { reasoning: 'low' }],
    ['openai-responses', { messages: [hi, effortOnly('high')] }, { reasoning: 'high', providerOptions: { openai: { store: false, reasoningSummary: null } } }],
    ['google', { output_config: { effort: 'low' }, messages: [hi, effortOnly('high')] }, { reasoning: 'high' }],
    ['bedrock', { thinking: { type: 'adaptive' }, output_config: { effort: 'max' }, messages: [hi, effortOnly('low')] }, { providerOptions: { bedrock: { reasoningConfig: { type: 'adaptive', maxReasoningEffort: 'low' } } } }],
  ] as const)('maps reasoning controls for %s: %j', (family, request, expected) => {
    const { value } = convert(family, request as Partial<MessageRequest>);
    expect({ reasoning: value.reasoning, providerOptions: value.providerOptions }).toEqual({ reasoning: undefined, providerOptions: undefined, ...expected });
  });

  // Claude on Bedrock takes Anthropic's effort without thinking (`reasoningConfig` without a type becomes
  // `output_config.effort` only); the portable `reasoning` would switch its thinking on.
  it.each([
    [{ output_config: { effort: 'medium' } }, { providerOptions: { bedrock: { reasoningConfig: { maxReasoningEffort: 'medium' } } } }],
    [{ output_config: { effort: 'xhigh' } }, { providerOptions: { bedrock: { reasoningConfig: { maxReasoningEffort: 'xhigh' } } } }],
    [{ messages: [hi, effortOnly('low')] }, { providerOptions: { bedrock: { reasoningConfig: { maxReasoningEffort: 'low' } } } }],
    [{ thinking: { type: 'adaptive' }, output_config: { effort: 'low' } }, { providerOptions: { bedrock: { reasoningConfig: { type: 'adaptive', maxReasoningEffort: 'low' } } } }],
    [{ thinking: { type: 'disabled' }, output_config: { effort: 'low' } }, { providerOptions: { bedrock: { additionalModelRequestFields: { thinking: { type: 'disabled' } }, reasoningConfig: { maxReasoningEffort: 'low' } } } }],
    [{ thinking: { type: 'disabled' } }, { providerOptions: { bedrock: { additionalModelRequestFields: { thinking: { type: 'disabled' } } } } }],
    [{}, {}],
  ] as const)('maps reasoning controls for Claude on Bedrock: %j', (request, expected) => {
    const { value } = convert('bedrock', request as Partial<MessageRequest>, CLAUDE_ON_BEDROCK);
    expect({ reasoning: value.reasoning, providerOptions: value.providerOptions }).toEqual({ reasoning: undefined, providerOptions: undefined, ...expected });
  });

  it('maps structured output, tool choice variants and parallel tool use', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    const { value } = convert('openai-chat', {
      output_config: { format: { type: 'json_schema', schema: schema as never } },
      tools: [{ name: 'a', input_schema: { type: 'object' } as never }],
      tool_choice: { type: 'tool', name: 'a', disable_parallel_tool_use: true },
      metadata: { user_id: 'end-user-7' },
    });
    expect(value.responseFormat).toEqual({ type: 'json', schema, name: 'response' });
    expect(value.toolChoice).toEqual({ type: 'tool', toolName: 'a' });
    expect(value.providerOptions).toEqual({ openai: { parallelToolCalls: false, safetyIdentifier: safetyIdentifier('end-user-7') } });
    expect(convert('openai-compatible', { tools: [{ name: 'a', input_schema: {} as never }], tool_choice: { type: 'auto', disable_parallel_tool_use: true } }).value.providerOptions).toEqual({
      openaiCompatible: { parallel_tool_calls: false },
    });
    expect(convert('openai-chat', { tool_choice: { type: 'none' }, tools: [{ name: 'a', input_schema: {} as never }] }).value.toolChoice).toEqual({ type: 'none' });
  });

  it.each([
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', { anthropic: { disableParallelToolUse: true } }, []],
    ['amazon.nova-pro-v1:0', undefined, ['disable_parallel_tool_use dropped: not supported by Amazon Bedrock']],
  ])('on Bedrock model %s gives parallel tool use as %j', (upstreamModel, providerOptions, warnings) => {
    const request: MessageRequest = {
      model: 'vendor/model',
      max_tokens: 512,
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [{ name: 'a', input_schema: {} as never }],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    };
    const converted = convertToAiSdkCallOptions({ request, profile: vendorProfile('bedrock'), upstreamModel });
    expect(converted.value.providerOptions).toEqual(providerOptions);
    expect(converted.warnings).toEqual(warnings);
  });
});

describe('speed: fast', () => {
  const request: MessageRequest = { model: 'openai/gpt-5', max_tokens: 512, messages: [{ role: 'user', content: 'Hi' }] };

  it.each([['openai-chat'], ['openai-responses'], ['azure']] as const)('asks %s for priority processing', (family) => {
    const { value } = convertToAiSdkCallOptions({ request, profile: vendorProfile(family), fast: true });
    const namespace = vendorProfile(family).namespace;
    expect(value.providerOptions?.[namespace]).toMatchObject({ serviceTier: 'priority' });
  });

  it('changes nothing at standard speed or for vendors without a priority tier', () => {
    expect(convertToAiSdkCallOptions({ request, profile: vendorProfile('openai-chat') }).value.providerOptions?.openai).toBeUndefined();
    const google = convertToAiSdkCallOptions({ request, profile: vendorProfile('google'), fast: true }).value;
    expect(JSON.stringify(google.providerOptions ?? {})).not.toContain('priority');
  });
});

describe("the endpoint's output limit", () => {
  const lowered = "max_tokens 32000 lowered to 8192: the endpoint's output limit";
  it.each([
    ['openai-compatible', '', {}, 32_000, 8192, 8192, [lowered]],
    ['openai-compatible', '', {}, 8192, 8192, 8192, []],
    ['openai-compatible', '', {}, 4096, 8192, 4096, []],
    ['openai-compatible', '', {}, 32_000, undefined, 32_000, []],
    // Claude on Bedrock: lowered first, then the thinking budget taken off (the AI SDK adds it back).
    ['bedrock', 'anthropic.claude-x-v1:0', { thinking: { type: 'enabled', budget_tokens: 2000 } }, 32_000, 8192, 6192, [lowered]],
    // A budget not below the lowered limit is lowered with it (8191 of 8192): the AI SDK's sum stays the limit.
    ['bedrock', 'anthropic.claude-x-v1:0', { thinking: { type: 'enabled', budget_tokens: 31_999 } }, 32_000, 8192, 1, [lowered]],
  ] as const)('%s %s: max_tokens %i with a limit of %s sends %i', (family, upstreamModel, extra, maxTokens, outputLimit, expected, warnings) => {
    const request = { model: 'vendor/model', max_tokens: maxTokens, messages: [{ role: 'user' as const, content: 'Hi' }], ...extra } as MessageRequest;
    const converted = convertToAiSdkCallOptions({ request, profile: vendorProfile(family), upstreamModel, outputLimit });
    expect(converted.value.maxOutputTokens).toBe(expected);
    expect(converted.warnings.filter((warning) => warning.startsWith('max_tokens'))).toEqual(warnings);
  });
});

describe('a thinking budget under the lowered output limit', () => {
  it('Claude on Bedrock: the budget sent plus maxOutputTokens is the endpoint limit', () => {
    const request = { model: 'vendor/model', max_tokens: 32_000, thinking: { type: 'enabled', budget_tokens: 24_000 }, messages: [{ role: 'user' as const, content: 'Hi' }] } as MessageRequest;
    const converted = convertToAiSdkCallOptions({ request, profile: vendorProfile('bedrock'), upstreamModel: 'anthropic.claude-x-v1:0', outputLimit: 8192 });
    const budget = (converted.value.providerOptions?.bedrock as { reasoningConfig: { budgetTokens: number } }).reasoningConfig.budgetTokens;
    expect(budget).toBe(6144);
    expect((converted.value.maxOutputTokens ?? 0) + budget).toBe(8192);
    expect(converted.warnings).toContain('thinking.budget_tokens 24000 lowered to 6144 with max_tokens');
  });
});
