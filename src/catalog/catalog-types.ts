/**
 * The catalog's data types: the shapes built-in data is written in (snake_case, like the configuration file and
 * the `GET /models` wire format) and the resolved, frozen records the hot path reads.
 */
import type { ModelFeatures, ModelDataPolicy, ModelLongContextPricing, ModelPricing } from '#src/api-types.ts';
import type { ApiFamily } from '#src/providers/provider-adapter.ts';
import type { SecretValue } from '#src/catalog/secret-value.ts';
import type { DataRegion, ResidencyRegion } from '#src/data-region.ts';

export type { ApiFamily };

/** How a provider expects its key. */
export type AuthStyle =
  | 'x-api-key' // Anthropic: `x-api-key: <key>`
  | 'bearer' // OpenAI and compatibles: `Authorization: Bearer <key>`
  | 'x-goog-api-key' // Gemini API
  | 'api-key' // Azure OpenAI: `api-key: <key>`
  | 'aws' // Bedrock: SigV4 from AWS credentials, or a Bedrock API key sent as a bearer token
  | 'none'; // local servers (Ollama, vLLM)

/** How a provider caches prompts: explicit breakpoints (`cache_control`, cache points) or on its own. */
export type PromptCachingStyle = 'explicit' | 'automatic' | 'none';

/** Weight precision an open-weight model is served at. */
export type Quantization = 'fp4' | 'fp6' | 'fp8' | 'int4' | 'int8' | 'bf16' | 'fp16' | 'fp32';

/** What the gateway can send to a model or endpoint (`features` in `GET /models`). @see ModelFeatures in openapi/components/schemas/models.yaml */
export type Capabilities = ModelFeatures;

/** What a provider does with prompts. @see DataPolicy in openapi/components/schemas/models.yaml */
export type DataPolicy = ModelDataPolicy;

/** Prices for a request whose prompt exceeds `threshold_tokens`, replacing every base price. */
export type LongContextPricing = ModelLongContextPricing;

/**
 * List prices in USD per million tokens. A null cache price bills those tokens at `input`; an absent or null
 * `cache_write_1h` bills one-hour writes at `cache_write`. @see ModelPricing in openapi/components/schemas/models.yaml
 */
export type Pricing = ModelPricing;

/**
 * Static quirks of a vendor's API, read by the AI SDK adapter (`ai-sdk-adapter.ts`, in one place); everything
 * optional. All but `toolCallIdMaxLength` concern the OpenAI-compatible wire format only.
 */
export interface ProviderQuirks {
  /** Ask for usage in the last stream chunk (`stream_options.include_usage`); default true. Mistral refuses the field. */
  includeUsage?: boolean;
  /** The vendor honours `response_format: json_schema`. */
  supportsStructuredOutputs?: boolean;
  /**
   * Tool results go as content parts (text and images); otherwise a result's files follow in a user message.
   * Either way only where the endpoint reads them (its `vision` and `pdf` capabilities); else a note replaces them.
   */
  supportsMultiPartToolContent?: boolean;
  /**
   * The field of an assistant message holding its reasoning: where an earlier turn's thinking is sent back
   * (default `reasoning_content`; Groq and Cerebras refuse that field), or `none` for a vendor that takes no
   * reasoning in an assistant message (Mistral answers 422 `extra_forbidden`): it is left out. Streamed
   * reasoning is read from either field.
   */
  reasoningField?: 'reasoning_content' | 'reasoning' | 'none';
  /**
   * The vendor wants `reasoning_content` back on every assistant message of a turn that called tools and
   * refuses one without it (DeepSeek's thinking mode): a message the conversation has no reasoning for gets
   * it empty. Only with `reasoningField` `reasoning_content`.
   */
  toolTurnsNeedReasoning?: boolean;
  /**
   * The vendor returns typed reasoning items beside the reasoning text (OpenRouter's `reasoning_details`, some
   * encrypted) and wants them back unchanged on the assistant message of the next turn: they are read from
   * the raw answer, carried in the thinking blocks' signatures and sent back (`reasoning-details.ts`).
   */
  reasoningDetails?: boolean;
  /**
   * Longest tool-call id the vendor accepts (Mistral: exactly 9 letters and digits): every id of the
   * conversation is sent as that many letters and digits, mapped consistently, and given back as the client's.
   */
  toolCallIdMaxLength?: number;
  /** Static headers every call carries. */
  headers?: Readonly<Record<string, string>>;
}

/** A provider as written in built-in data: a preset. @see src/providers/presets/ */
export interface ProviderPreset {
  slug: string;
  /** Brand name shown in routing metadata (`gateway_metadata.endpoints.available[].provider`). */
  display_name: string;
  family: ApiFamily;
  /** Default base URL; null when it can only come from configuration (Azure resources). */
  base_url: string | null;
  /** Data-residency hosts; a request for that region (or a key whose region is that) goes there. */
  regional_base_urls?: Partial<Record<ResidencyRegion, string>>;
  /** Keys may be region-bound, naming the key's region (openai, fireworks; `{"api_key", "region"}` JSON text on the wire). */
  regional_keys?: boolean;
  auth: AuthStyle;
  data_policy: DataPolicy;
  prompt_caching: PromptCachingStyle;
  quirks?: ProviderQuirks;
  /** Where the facts above come from. */
  docs?: string;
}

/** One provider serving one model, as written in built-in data. Omitted fields inherit provider defaults. */
export interface EndpointData {
  provider: string;
  /** The provider's own id of the model. */
  model: string;
  pricing: Pricing;
  fast?: { pricing: Pricing } | null;
  /** Fields given override the provider's data policy. */
  data_policy?: Partial<DataPolicy>;
  /** Default: `global` plus every region the provider has a host for. */
  regions?: DataRegion[];
  /** Model ids that differ by region (Bedrock's `us.` and `eu.` inference profiles). */
  regional_models?: Partial<Record<ResidencyRegion, string>>;
  /**
   * What a regional model id costs over `pricing`, as a fraction (0.1: 10% more on every token price): Bedrock's
   * in-region (geo) inference profiles of Claude 4.5 and later against the global profile. Default 0.
   */
  regional_premium?: number;
  quantization?: Quantization | null;
  /** Default: the model's context length (unknown when the model's is). */
  context_length?: number;
  max_output_tokens?: number | null;
  /** Capabilities this endpoint lacks compared with the model's (`false` entries only matter). */
  capabilities?: Partial<Capabilities>;
  /**
   * When the provider announced this model id's retirement (RFC 3339, UTC); absent or null when none was, or
   * when its date is not recorded. @see src/catalog/lifecycle.ts
   */
  deprecated_at?: string | null;
  /** When the provider stops serving this model id (RFC 3339, UTC): from then on it is never routed to. */
  retires_at?: string | null;
}

/** A model as written in built-in data. */
export interface ModelData {
  /** `<vendor>/<model>`. */
  id: string;
  name: string;
  /** null when unknown: a model added in the configuration file without one (local vLLM, Ollama). */
  context_length: number | null;
  capabilities: Capabilities;
  endpoints: EndpointData[];
}

/** A provider as the gateway runs it: the preset merged with configuration. Frozen. */
export interface CatalogProvider {
  readonly slug: string;
  readonly displayName: string;
  readonly family: ApiFamily;
  /** null when neither the preset nor the configuration gives one: endpoints of the provider cannot run. */
  readonly baseUrl: string | null;
  readonly regionalBaseUrls: Readonly<Partial<Record<ResidencyRegion, string>>>;
  readonly regionalKeys: boolean;
  readonly auth: AuthStyle;
  readonly dataPolicy: Readonly<DataPolicy>;
  readonly promptCaching: PromptCachingStyle;
  readonly quirks: Readonly<ProviderQuirks>;
  /** Static headers from the preset's quirks and the configuration. */
  readonly headers: Readonly<Record<string, string>>;
  /** The gateway-owned (shared) key from the configuration; null when the gateway has none. */
  readonly sharedKey: SecretValue | null;
  /** AWS settings for Bedrock (region for SigV4, credentials); null elsewhere or when unset. */
  readonly aws: Readonly<AwsSettings> | null;
  /** Azure OpenAI `api-version`, when configured. */
  readonly azureApiVersion: string | null;
}

/** AWS settings for a Bedrock provider. Secrets are wrapped so that logging them prints `[redacted]`. */
export interface AwsSettings {
  region: string | null;
  accessKeyId: SecretValue | null;
  secretAccessKey: SecretValue | null;
  sessionToken: SecretValue | null;
}

/** One endpoint as the gateway runs it. Frozen; the provider is referenced, not looked up. */
export interface CatalogEndpoint {
  /** `<model slug>@<provider slug>`: a stable key for measurements (throughput, latency) and sticky pins. */
  readonly id: string;
  readonly modelSlug: string;
  readonly provider: CatalogProvider;
  readonly upstreamModel: string;
  readonly regionalModels: Readonly<Partial<Record<ResidencyRegion, string>>>;
  readonly pricing: Readonly<Pricing>;
  /** The prices of each regional model id, where they differ from `pricing` (`regional_premium`). */
  readonly regionalPricing: Readonly<Partial<Record<ResidencyRegion, Readonly<Pricing>>>>;
  readonly fast: Readonly<{ pricing: Readonly<Pricing> }> | null;
  readonly dataPolicy: Readonly<DataPolicy>;
  readonly regions: readonly DataRegion[];
  readonly quantization: Quantization | null;
  /** null when unknown: nothing filters on it then. */
  readonly contextLength: number | null;
  readonly maxOutputTokens: number | null;
  /** The model's capabilities narrowed by the endpoint's own. */
  readonly capabilities: Readonly<Capabilities>;
  /** When the provider announced the retirement (RFC 3339); null when it did not, or the date is not recorded. */
  readonly deprecatedAt: string | null;
  /** When the provider stops serving the model id (RFC 3339); null while no retirement is scheduled. */
  readonly retiresAt: string | null;
}

/** One model as the gateway runs it. Frozen. */
export interface CatalogModel {
  readonly slug: string;
  /** The part before the slash, for `<vendor>/*` patterns. */
  readonly vendor: string;
  readonly name: string;
  /** null when unknown: nothing filters on it then. */
  readonly contextLength: number | null;
  readonly capabilities: Readonly<Capabilities>;
  readonly endpoints: readonly CatalogEndpoint[];
}
