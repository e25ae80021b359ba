/**
 * Open-weight models (Llama, Qwen, DeepSeek, gpt-oss) on the vendors that host them. Prices per million tokens
 * from each vendor's pricing page as far as it could be checked, and against LiteLLM's
 * model_prices_and_context_window.json (its 2026-07-24 copy in RoCry/llm-api-price); those marked "unverified"
 * are recalled list prices that could not be confirmed and should be checked before billing on them.
 * OpenAI-compatible hosts take no PDF blocks.
 */
import type { Capabilities, ModelData } from '#src/catalog/catalog-types.ts';

const TEXT_TOOLS: Capabilities = { tools: true, vision: false, pdf: false, thinking: false, caching: false, structured_output: true };
const NO_JSON_SCHEMA = { structured_output: false };

/**
 * When Cerebras stopped serving `llama-3.3-70b` and `qwen-3-32b`: its deprecations page's entry "2026-02-16
 * Deprecated `qwen-3-32b` and `llama-3.3-70b` ... We recommend migrating to GPT OSS 120B". The page dates each
 * entry by the day a model went away (announced ones read "Deprecating ... fully deprecated on <date>"), so the
 * entry's day is the retirement, at 00:00 UTC; the other providers of both models keep serving them.
 * @see https://inference-docs.cerebras.ai/support/deprecation
 */
const CEREBRAS_FEBRUARY_2026_RETIREMENT = '2026-02-16T00:00:00Z';

/**
 * When Groq stopped serving its Llama and Qwen ids, as its deprecations page dates them: the page's sections
 * "March 9, 2026: meta-llama/llama-4-maverick-17b-128e-instruct", "July 17, 2026: qwen/qwen3-32b and
 * meta-llama/llama-4-scout-17b-16e-instruct" and "August 16, 2026: llama-3.1-8b-instant and llama-3.3-70b-versatile"
 * (their anchors, console.groq.com/docs/deprecations#march-9-2026-metallamallama4maverick17b128einstruct,
 * #july-17-2026-qwenqwen332b-and-metallamallama4scout17b16einstruct and
 * #august-16-2026-llama318binstant-and-llama3370bversatile, as cited by langchain-ai/langchain#38363 (2026-06-22),
 * MNeMoNiCuZ/ComfyUI-mnemic-nodes#39 and promptfoo/promptfoo#9933, which checked them against the page). Groq's
 * notice for Llama 3.3 70B, quoted in karthink/gptel#1478: "decommissioning it on August 16, 2026. After the
 * decommission date, requests to the model will no longer be served", for "free and developer-tier usage" (an
 * enterprise committed-spend contract keeps it: such a deployment sets `retires_at: null` in its configuration);
 * afterwards Groq answers 404 `model_not_found` (ITSpecialist111/ai_automation_suggester#187). No stored copy of
 * the page itself reaches the sections (searched 2026-11-28), and the days they were announced are not recorded.
 * The page gives days only: 00:00 UTC. The other providers of these models keep serving them.
 * @see https://console.groq.com/docs/deprecations
 */
const GROQ_RETIREMENTS = {
  llama4Maverick: '2026-03-09T00:00:00Z',
  qwen3: '2026-07-17T00:00:00Z',
  llama3: '2026-08-16T00:00:00Z',
} as const;

/** The built-in open-weight models. */
export const OPEN_WEIGHT_MODELS: ModelData[] = [
  {
    id: 'meta-llama/llama-3.3-70b-instruct',
    name: 'Llama 3.3 70B Instruct',
    context_length: 131_072,
    capabilities: TEXT_TOOLS,
    endpoints: [
      {
        provider: 'groq',
        model: 'llama-3.3-70b-versatile',
        pricing: { input: 0.59, output: 0.79, cache_read: null, cache_write: null },
        max_output_tokens: 32_768,
        capabilities: NO_JSON_SCHEMA,
        retires_at: GROQ_RETIREMENTS.llama3,
      },
      {
        provider: 'together',
        model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
        pricing: { input: 0.88, output: 0.88, cache_read: null, cache_write: null },
        quantization: 'fp8',
      },
      {
        provider: 'fireworks',
        model: 'accounts/fireworks/models/llama-v3p3-70b-instruct',
        pricing: { input: 0.9, output: 0.9, cache_read: null, cache_write: null },
      },
      {
        provider: 'cerebras',
        model: 'llama-3.3-70b',
        // Price: LiteLLM's price file (2026-07-24 copy) agrees. Context limit unverified (LiteLLM has 128K; Cerebras'
        // model pages give 65K on the free tier and more on paid tiers).
        pricing: { input: 0.85, output: 1.2, cache_read: null, cache_write: null },
        context_length: 65_536,
        retires_at: CEREBRAS_FEBRUARY_2026_RETIREMENT,
      },
    ],
  },
  {
    id: 'meta-llama/llama-3.1-8b-instruct',
    name: 'Llama 3.1 8B Instruct',
    context_length: 131_072,
    capabilities: TEXT_TOOLS,
    endpoints: [
      {
        provider: 'groq',
        model: 'llama-3.1-8b-instant',
        pricing: { input: 0.05, output: 0.08, cache_read: null, cache_write: null },
        max_output_tokens: 131_072,
        capabilities: NO_JSON_SCHEMA,
        retires_at: GROQ_RETIREMENTS.llama3,
      },
      {
        provider: 'together',
        model: 'meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo',
        // LiteLLM's price file (2026-07-24 copy) agrees.
        pricing: { input: 0.18, output: 0.18, cache_read: null, cache_write: null },
        quantization: 'fp8',
      },
    ],
  },
  {
    id: 'meta-llama/llama-4-maverick',
    name: 'Llama 4 Maverick 17B 128E Instruct',
    context_length: 1_048_576,
    capabilities: { ...TEXT_TOOLS, vision: true },
    endpoints: [
      {
        provider: 'groq',
        model: 'meta-llama/llama-4-maverick-17b-128e-instruct',
        pricing: { input: 0.2, output: 0.6, cache_read: null, cache_write: null },
        context_length: 131_072,
        max_output_tokens: 8_192,
        retires_at: GROQ_RETIREMENTS.llama4Maverick,
      },
      {
        provider: 'together',
        model: 'meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8',
        // LiteLLM's price file (2026-07-24 copy) agrees.
        pricing: { input: 0.27, output: 0.85, cache_read: null, cache_write: null },
        quantization: 'fp8',
      },
      {
        provider: 'fireworks',
        model: 'accounts/fireworks/models/llama4-maverick-instruct-basic',
        // LiteLLM's price file (2026-07-24 copy) agrees.
        pricing: { input: 0.22, output: 0.88, cache_read: null, cache_write: null },
      },
    ],
  },
  {
    id: 'qwen/qwen3-32b',
    name: 'Qwen3 32B',
    context_length: 131_072,
    capabilities: { ...TEXT_TOOLS, thinking: true },
    endpoints: [
      {
        provider: 'groq',
        model: 'qwen/qwen3-32b',
        pricing: { input: 0.29, output: 0.59, cache_read: null, cache_write: null },
        max_output_tokens: 40_960,
        capabilities: NO_JSON_SCHEMA,
        retires_at: GROQ_RETIREMENTS.qwen3,
      },
      {
        provider: 'cerebras',
        model: 'qwen-3-32b',
        // LiteLLM's price file (2026-07-24 copy) agrees.
        pricing: { input: 0.4, output: 0.8, cache_read: null, cache_write: null },
        retires_at: CEREBRAS_FEBRUARY_2026_RETIREMENT,
      },
    ],
  },
  {
    id: 'qwen/qwen3-235b-a22b-instruct-2507',
    name: 'Qwen3 235B A22B Instruct 2507',
    context_length: 262_144,
    capabilities: TEXT_TOOLS,
    endpoints: [
      {
        provider: 'together',
        model: 'Qwen/Qwen3-235B-A22B-Instruct-2507-tput',
        // unverified: LiteLLM's price file (2026-07-24 copy) has $0.20 in and $6.00 out, likely a slip for $0.60.
        // Searched again 2026-11-28: no copy of Together's own page (together.ai/pricing or the model's page) is
        // stored; third-party tables citing that page say $0.20/$0.60, which the catalog keeps. `cache_read: null`
        // (cached tokens billed as input) is UNVERIFIED: no Together page in the corpora prices cached input for it
        // (searched a second time 2026-11-28: still no copy of Together's pricing or model page).
        pricing: { input: 0.2, output: 0.6, cache_read: null, cache_write: null },
        quantization: 'fp8',
      },
      {
        provider: 'fireworks',
        model: 'accounts/fireworks/models/qwen3-235b-a22b-instruct-2507',
        // LiteLLM's price file (2026-07-24 copy) agrees.
        pricing: { input: 0.22, output: 0.88, cache_read: null, cache_write: null },
      },
    ],
  },
  {
    id: 'deepseek/deepseek-v3.2',
    name: 'DeepSeek V3.2',
    context_length: 128_000,
    capabilities: { ...TEXT_TOOLS, caching: true, structured_output: false },
    endpoints: [
      {
        provider: 'deepseek',
        model: 'deepseek-chat',
        // Cache miss $0.28, cache hit $0.028, output $0.42 (api-docs.deepseek.com, V3.2 prices).
        pricing: { input: 0.28, output: 0.42, cache_read: 0.028, cache_write: null },
        max_output_tokens: 8_192,
      },
    ],
  },
  {
    id: 'deepseek/deepseek-v3.2-thinking',
    name: 'DeepSeek V3.2 (thinking)',
    context_length: 128_000,
    capabilities: { ...TEXT_TOOLS, thinking: true, caching: true, structured_output: false },
    endpoints: [
      {
        provider: 'deepseek',
        model: 'deepseek-reasoner',
        pricing: { input: 0.28, output: 0.42, cache_read: 0.028, cache_write: null },
        max_output_tokens: 65_536,
      },
    ],
  },
  {
    id: 'deepseek/deepseek-v3.1',
    name: 'DeepSeek V3.1',
    context_length: 131_072,
    capabilities: { ...TEXT_TOOLS, thinking: true },
    endpoints: [
      {
        provider: 'together',
        model: 'deepseek-ai/DeepSeek-V3.1',
        // LiteLLM's price file (2026-07-24 copy) agrees.
        pricing: { input: 0.6, output: 1.7, cache_read: null, cache_write: null },
        quantization: 'fp8',
      },
      {
        provider: 'fireworks',
        model: 'accounts/fireworks/models/deepseek-v3p1',
        // LiteLLM's price file (2026-07-24 copy) agrees.
        pricing: { input: 0.56, output: 1.68, cache_read: null, cache_write: null },
        quantization: 'fp8',
      },
    ],
  },
  {
    id: 'openai/gpt-oss-120b',
    name: 'gpt-oss-120b',
    context_length: 131_072,
    capabilities: { ...TEXT_TOOLS, thinking: true, caching: true },
    endpoints: [
      {
        provider: 'groq',
        model: 'openai/gpt-oss-120b',
        pricing: { input: 0.15, output: 0.6, cache_read: 0.075, cache_write: null },
        quantization: 'fp4',
        max_output_tokens: 65_536,
      },
      {
        provider: 'together',
        model: 'openai/gpt-oss-120b',
        pricing: { input: 0.15, output: 0.6, cache_read: null, cache_write: null },
        quantization: 'fp4',
        capabilities: { caching: false },
      },
      {
        provider: 'fireworks',
        model: 'accounts/fireworks/models/gpt-oss-120b',
        pricing: { input: 0.15, output: 0.6, cache_read: null, cache_write: null },
        quantization: 'fp4',
        capabilities: { caching: false },
      },
      {
        provider: 'cerebras',
        model: 'gpt-oss-120b',
        // $0.35 in, $0.75 out: Cerebras' model page (inference-docs.cerebras.ai/models/openai-oss) and LiteLLM's
        // price file (which cites Cerebras' launch post); the catalog had $0.25/$0.69.
        pricing: { input: 0.35, output: 0.75, cache_read: null, cache_write: null },
        quantization: 'fp4',
        capabilities: { caching: false },
      },
    ],
  },
];
