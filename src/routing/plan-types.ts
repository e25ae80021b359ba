/**
 * The routing planner's own input and output types. They are deliberately small and independent of the catalog
 * and BYOK modules: the caller maps catalog endpoints and stored credentials onto them, so the planner stays a
 * pure function that table tests can drive with literal data.
 */
import type { MessageRequest, ToolResultBlockParam } from '#src/api-types.ts';
import type { DataRegion, ResidencyRegion } from '#src/data-region.ts';

/** List prices in USD per million tokens. */
export interface PlanPricing {
  input: number;
  output: number;
  cache_read?: number | null;
  cache_write?: number | null;
}

/**
 * Why an endpoint cannot serve a declared-region BYOK credential even though the credential names that region.
 * @see the `declared_region` rules of the interface: private endpoints, endpoints pinned to another cloud region,
 * cross-region inference profiles and video models are excluded.
 */
export interface RegionalExclusions {
  privateEndpoint?: boolean;
  /** The cloud region the endpoint is pinned to; a different requested region excludes it. */
  pinnedRegion?: ResidencyRegion | null;
  crossRegionProfile?: boolean;
  video?: boolean;
}

/** One provider serving one model. */
export interface PlanEndpoint {
  model: string;
  provider: string;
  /** Brand name shown in routing metadata. */
  providerName: string;
  upstreamModel: string;
  pricing: PlanPricing;
  /** The higher-speed variant (`speed: fast`), at its own price; null or absent when there is none. */
  fast?: { upstreamModel?: string; pricing: PlanPricing } | null;
  dataPolicy: { zdr: boolean; dataCollection: 'allow' | 'deny' };
  /** Regions the endpoint's shared capacity may serve. */
  regions: readonly DataRegion[];
  regionalExclusions?: RegionalExclusions;
  /** Request parameters the endpoint honours, in the vocabulary of {@link RequestParameter}. */
  supportedParameters: readonly string[];
  /** Tokens; null when unknown (a configured model without one), which no filter excludes. */
  contextLength: number | null;
  /**
   * When the provider retired (or will retire) the model id, epoch milliseconds; null or absent while none is
   * scheduled. From then on the endpoint is never planned.
   */
  retiresAt?: number | null;
}

/**
 * A model and every endpoint serving it, in catalog order. `E` lets the caller's endpoints carry more than the
 * planner reads (the catalog view's carry where their calls go); the planner hands them back untouched.
 */
export interface PlanModel<E extends PlanEndpoint = PlanEndpoint> {
  slug: string;
  endpoints: readonly E[];
}

/** A caller's stored provider credential, reduced to what routing needs. @see ByokCredential */
export interface PlanCredential {
  id: string;
  provider: string;
  disabled: boolean;
  isFallback: boolean;
  isByokOnly: boolean;
  isRequired: boolean;
  sortOrder: number;
  allowedModels: readonly string[] | null;
  allowedApiKeyHashes: readonly string[] | null;
  allowedUserIds: readonly string[] | null;
  declaredRegion: DataRegion | null;
  declaredZdr: boolean | null;
}

/** What the gateway measured recently on one endpoint; either figure may be unknown. */
export interface EndpointStats {
  throughputTokensPerSecond?: number;
  latencyMs?: number;
}

/** The endpoint (and credential) a session is pinned to. @see sticky/sticky-sessions.ts */
export interface StickyPin {
  provider: string;
  /** null: the shared (gateway) key. */
  credentialId: string | null;
  model?: string;
  /**
   * A thread pin only: the upstream answer a `continue` naming the pinned id resumes from, when that is not the
   * id itself (a tool loop answers with its first step's id, the upstream holds the thread under its last's).
   */
  messageId?: string;
  /**
   * A thread pin only: the results of gateway tool calls the thread's last upstream answer made and the
   * upstream never got (a tool loop that ended on them), by the model's own call ids. Anthropic continues a
   * thread only when its next user turn starts with a `tool_result` for each such call, so the continue gets
   * them first.
   */
  pendingResults?: ToolResultBlockParam[];
}

/**
 * How a session was named. `session`: an explicit id (`session_id`, `x-session-id`,
 * `x-claude-code-session-id`), a statement that the requests belong together, so the provider is kept.
 * `content`: a hash of the first messages, only a guess, which yields to the caller's own keys.
 */
export type StickyKind = 'session' | 'content';

/** Parameters a request may use that not every endpoint honours. */
export type RequestParameter =
  | 'tools'
  | 'tool_choice'
  | 'thinking'
  | 'images'
  | 'pdf'
  | 'structured_output'
  | 'stop_sequences'
  | 'temperature'
  | 'top_p'
  | 'top_k';

/** Everything {@link planAttempts} reads. */
export interface PlanInput<E extends PlanEndpoint = PlanEndpoint> {
  request: MessageRequest;
  /** Replaces `request.model` as the primary model, e.g. the auto-router's choice. */
  primaryModel?: string;
  /** SHA-256 hex of the calling gateway key, matched against `allowed_api_key_hashes`. */
  callerKeyHash: string;
  region: DataRegion;
  /** Resolves a slug (or alias) to a model; undefined when unknown. */
  models: (slug: string) => PlanModel<E> | undefined;
  /** The caller's credentials, all providers. */
  credentials: readonly PlanCredential[];
  /** Providers with a gateway-owned key: only these have a shared endpoint. */
  sharedProviders: ReadonlySet<string>;
  /** Measurements keyed by `${model}|${provider}`. */
  stats?: ReadonlyMap<string, EndpointStats>;
  stickyPin?: StickyPin | null;
  /** How the pinned session was named: an explicit id keeps its provider, a content hash yields to BYOK. Default `session`. */
  stickyKind?: StickyKind;
  /** A source of numbers in [0, 1), injected so that the price-weighted spread is deterministic in tests. */
  random: () => number;
  /** The time of the request, epoch milliseconds, against which endpoints' `retiresAt` is read; default now. */
  now?: number;
}

/** Which key an attempt uses. */
export type AttemptCredential = { kind: 'shared' } | { kind: 'byok'; credentialId: string };

/** One (model, endpoint, credential) to try. */
export interface PlannedAttempt<E extends PlanEndpoint = PlanEndpoint> {
  model: string;
  endpoint: E;
  credential: AttemptCredential;
  /** Run the endpoint's fast variant. */
  fast: boolean;
  /** Position of this attempt's (model, provider) pair in the plan's `available` list. */
  availableIndex: number;
}

/**
 * One (model, provider) pair the plan may use, in plan order, for `gateway_metadata.endpoints.available`
 * (which marks the pair of the attempt that answered as `selected`).
 */
export interface AvailableEndpoint {
  model: string;
  /** Display name. */
  provider: string;
  providerSlug: string;
}

/** How the order was decided: `sticky`, `order`, `sort:price`, `sort:throughput`, `sort:latency`, `price-weighted`. */
export type PlanStrategy = string;

/** The planner's answer: attempts in the order to try them. */
export interface RoutingPlan<E extends PlanEndpoint = PlanEndpoint> {
  attempts: PlannedAttempt<E>[];
  strategy: PlanStrategy;
  available: AvailableEndpoint[];
  /** Things the caller may log or summarise: models dropped and why, fast unavailable, ... */
  warnings: string[];
}
