/**
 * What a `/messages` request says besides its body, read once at the route (src/http/messages-context.ts)
 * into plain data: nothing under messages/ or routing/ reads a request header.
 */
import type { MessageRequest } from '#src/api-types.ts';
import type { DataRegion } from '#src/data-region.ts';
import type { NamedSession } from '#src/routing/sticky/pin-key.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import type { AttemptRecord } from '#src/messages/run-attempts.ts';
import type { KeyLimits } from '#src/limits/key-limits.ts';
import type { StepRecord, StepUnderWay } from '#src/messages/tool-loop/loop-tally.ts';
import type { ScreeningCharge } from '#src/plugins/moderation/moderation-verdict.ts';

/** The authenticated caller, as routing and BYOK rules match it. */
export interface RequestCaller {
  accountId: string;
  workspaceId: string;
  /** SHA-256 hex of the calling gateway key, matched against `allowed_api_key_hashes`. */
  keyHash: string;
  /** The key's limits (null or absent: none), checked before anything is sent. */
  limits?: KeyLimits | null;
}

/** The typed context of one `/messages` or `/messages/count_tokens` request. */
export interface MessagesRequestContext {
  caller: RequestCaller;
  /** Also the response's `request-id`; names the request in log lines. */
  generationId: string;
  /** `performance.now()` when the route began, for `generation_time`. */
  startedAt: number;
  /** Fires when the client leaves or the request's time budget is spent. */
  signal: AbortSignal;
  /** `X-Gateway-Region`, else the regional host the request arrived on, else `global`. */
  region: DataRegion;
  /** `X-Gateway-Metadata: enabled` (or the legacy `X-Gateway-Experimental-Metadata`). */
  wantsMetadata: boolean;
  /** `anthropic-version` and `anthropic-beta` as sent, for Anthropic-format upstreams. */
  forwardHeaders: Readonly<Record<string, string>>;
  /**
   * `anthropic-workspace-id` and `anthropic-user-profile-id` as sent, null (or absent) without either: they name
   * places in the caller's own Anthropic organization, so only an attempt with the caller's key forwards them.
   */
  organizationHeaders?: Readonly<Record<string, string>> | null;
  /** The session the client named; null when it named none (the sticky key then hashes the content). */
  session: NamedSession | null;
  /** Claude Code's `x-claude-code-session-id`, whether or not it named the session. */
  claudeCodeSessionId: string | null;
  /** The W3C `traceparent` header as sent, for trace destinations to join the caller's trace. */
  traceparent: string | null;
  /** How the request was routed, filled in by the service as it runs; the route hands it to observability. */
  trail: RoutingTrail;
  /**
   * The steps of the server-side tool loop so far (the loop's own list, appended to as steps finish), so a
   * record of a loop that failed partway still has the steps the key was charged for; null without a loop.
   */
  loopSteps?: readonly StepRecord[] | null;
  /**
   * The streamed loop's step whose answer is arriving (not yet among `loopSteps`): a loop the client leaves
   * then is charged what that step's upstream reported, as a plain stream is. Null between steps.
   */
  loopStepUnderWay?: StepUnderWay | null;
  /**
   * The `moderation` plugin's screening call by a catalog model, once answered: charged to the key whatever
   * follows, so the answer's cost and the record (of a failed request too) include it; null without one.
   */
  screening?: ScreeningCharge | null;
  /** The client's request when plugins change what is planned, so the sticky key is the client's (PlanContext). */
  stickyRequest?: MessageRequest;
}

/** The routing of one request so far: the plan's strategy, every attempt's record, the attempt that answered. */
export interface RoutingTrail {
  strategy: string | null;
  records: readonly AttemptRecord[];
  served: Attempt | null;
}
