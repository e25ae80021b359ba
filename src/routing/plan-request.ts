/**
 * The request planner: gathers what the pure routing plan needs (the catalog view, the caller's credentials
 * from the in-process cache, the session's sticky pin, measured endpoint statistics, the request's region),
 * calls `planAttempts`, and turns each planned attempt into plain data carrying everything its call needs.
 * How the attempts ended comes back as plain data too, to keep sticky pins and endpoint statistics current.
 */
import type { AutoRouterReport, MessageRequest, ToolResultBlockParam } from '#src/api-types.ts';
import type { DataRegion } from '#src/data-region.ts';
import type { ProviderKey } from '#src/providers/provider-adapter.ts';
import { assertCacheBreakpointLimit, placeTopLevelCacheBreakpoint } from '#src/request/cache-breakpoints.ts';
import { knownStopConditions } from '#src/request/stop-conditions.ts';
import { autoRouterSettings, chooseModel } from '#src/routing/auto-router/auto-router.ts';
import { toAttempt, type Attempt, type AttemptOutcome } from '#src/routing/attempt.ts';
import { requestsOtherOutputLimit } from '#src/routing/output-limit-betas.ts';
import { requestsLongContext } from '#src/routing/long-context.ts';
import type { CatalogPlanView } from '#src/routing/catalog-plan-view.ts';
import type { EndpointStatsTracker } from '#src/routing/endpoint-stats.ts';
import type { AvailableEndpoint, PlanCredential, StickyPin } from '#src/routing/plan-types.ts';
import { filterContextOf, modelServable, planAttempts } from '#src/routing/routing-plan.ts';
import { stickyKey, type NamedSession, type StickyScope } from '#src/routing/sticky/pin-key.ts';
import type { StickySessions } from '#src/routing/sticky/sticky-sessions.ts';
import { answeringPendingCalls, attemptsOnCallersAccounts, attemptsOnThreadAccount, continuedMessageId, resumedAtPinnedAnswer, threadPinKey, threadsRequest } from '#src/routing/sticky/thread-pins.ts';

/** The caller's stored credentials, as routing reads them: cached in process, keys decrypted on demand. */
export interface CredentialSource {
  forAccount(accountId: string): Promise<readonly PlanCredential[]>;
  /** Decrypts one credential's key; throws `CredentialUnavailableError` when it no longer exists. */
  revealKey(accountId: string, credentialId: string): Promise<ProviderKey>;
}

/** What the planner needs. */
export interface RequestPlannerDeps {
  view: CatalogPlanView;
  credentials: Pick<CredentialSource, 'forAccount'>;
  sessions: StickySessions;
  stats: EndpointStatsTracker;
  random?: () => number;
  /** The clock (epoch milliseconds) that endpoints' retirements are read against; default `Date.now`. */
  now?: () => number;
}

/** What the planner reads of a request besides its body (part of the messages request context). */
export interface PlanContext {
  caller: { accountId: string; workspaceId: string; keyHash: string };
  region: DataRegion;
  session: NamedSession | null;
  /**
   * The request as the client sent it, when the plugins changed what is planned (search results added to the
   * first user turn): a session named by no id is keyed by how the client's conversation starts, so every
   * request of it finds the same pin. Absent: the planned request is the client's.
   */
  stickyRequest?: MessageRequest;
  /** The Anthropic headers forwarded upstream; their `anthropic-beta` may open the long context window. */
  forwardHeaders?: Readonly<Record<string, string>>;
}

/** A request's plan: plain data, the attempts in the order to try them. */
export interface RequestPlan {
  /** The request as every attempt sees it (top-level cache marker placed); the auto-router's model is in the attempts. */
  request: MessageRequest;
  /** The model the client asked for. */
  requested: string;
  region: DataRegion;
  strategy: string;
  /** The (model, provider) pairs the plan may use, in plan order; each attempt knows the index of its own. */
  available: readonly AvailableEndpoint[];
  attempts: readonly Attempt[];
  /** The session's key in the pin store and the pin the plan was made with. */
  sticky: { key: string; pin: StickyPin | null };
  /**
   * Set when the request creates or continues a message thread: its answer's id is pinned in this account and
   * workspace.
   * `resumeFrom`: the upstream answer the continue was re-pointed at (`request` carries it already);
   * `pendingResults`: the results its first user turn starts with (`request` carries them already; a tool
   * loop, which builds its steps from the client's request, puts them there itself).
   */
  thread?: { scope: StickyScope; resumeFrom?: string; pendingResults?: readonly ToolResultBlockParam[] };
  /** The auto-router's choice, when the request was auto-routed, for `gateway_metadata.plugins`. */
  autoRouter?: AutoRouterReport;
  /** Endpoints moved to the back because their circuit is open (src/routing/circuit-breaker), when any. */
  circuitOpen?: readonly { model: string; provider: string; retryAt: number }[];
}

/** The attempt that answered (an answer or the refusal returned), for pins and statistics. */
export interface ServedAttempt {
  index: number;
  /** Output tokens of a complete answer, for throughput; absent for a stream. */
  outputTokens?: number;
  /** The answer's message id, which a thread's next turn names (`thread.previous_message_id`). */
  messageId?: string;
}

/** Plans requests and learns from how their attempts ended. */
export interface RequestPlanner {
  /** Plans a validated request; throws a `GatewayError` when nothing can serve it. */
  plan(request: MessageRequest, context: PlanContext): Promise<RequestPlan>;
  /**
   * Pins the session to the attempt that answered and records its latency (and throughput); drops the pin
   * when the pinned provider failed.
   */
  recordOutcomes(plan: RequestPlan, outcomes: readonly AttemptOutcome[], served: ServedAttempt | null): void;
  /**
   * Pins a tool loop's thread turn: the id the client was given (the first step's) to the account that served
   * the step just answered and to that step's own id, from which the client's next `continue` resumes.
   */
  recordThreadTurn(plan: RequestPlan, turn: ThreadTurn): void;
}

/** A tool loop step that answered a thread request. */
export interface ThreadTurn {
  /** The id of the message the client is given. */
  clientMessageId: string;
  /** The id the upstream gave this step's answer. */
  upstreamMessageId: string;
  attempt: Attempt;
  /** The loop ended on this step with gateway calls the upstream got no results for: those results. */
  pendingResults?: readonly ToolResultBlockParam[];
}

/**
 * The auto-router's choice when the request asks for it (`switchboard/auto` or the plugin): candidates are
 * the models the plan could serve for this caller, under the request's provider preferences, region and the
 * caller's BYOK rules, as the plan's own filters decide.
 */
function autoRoute(
  view: CatalogPlanView,
  request: MessageRequest,
  credentials: readonly PlanCredential[],
  pinnedModel: string | undefined,
  context: PlanContext,
  now: number,
): AutoRouterReport | undefined {
  const settings = autoRouterSettings(request);
  if (!settings) return undefined;
  const filters = filterContextOf({ request, callerKeyHash: context.caller.keyHash, region: context.region, credentials, sharedProviders: view.sharedProviders, now });
  return chooseModel({
    request,
    settings,
    candidates: view.autoCandidatesAt(now),
    pinnedModel: settings.pin_model ? (pinnedModel ?? null) : null,
    isServable: (slug) => {
      const model = view.model(slug);
      return model !== undefined && modelServable(model, filters);
    },
  }).report;
}

/** Creates the request planner. */
export function createRequestPlanner(deps: RequestPlannerDeps): RequestPlanner {
  const random = deps.random ?? Math.random;
  const clock = deps.now ?? Date.now;
  return {
    async plan(original, context) {
      // A request error every endpoint would answer alike is refused here, before any provider is called.
      assertCacheBreakpointLimit(original);
      if (original.stop_server_tools_when !== undefined) knownStopConditions(original.stop_server_tools_when);
      const sticky = stickyKey(context.stickyRequest ?? original, context.session, context.caller);
      const continued = continuedMessageId(original);
      const [credentials, pin, threadPin] = await Promise.all([
        deps.credentials.forAccount(context.caller.accountId),
        deps.sessions.lookup(sticky.key),
        continued === undefined ? null : deps.sessions.lookupThread(threadPinKey(context.caller, continued)),
      ]);
      const now = clock();
      const chosen = autoRoute(deps.view, original, credentials, pin?.model, context, now);
      // A continue of a tool loop's answer resumes where the upstream holds the thread: the loop's last step.
      // ...with the results of the gateway calls that step left unanswered first, or the upstream refuses it.
      const request = answeringPendingCalls(resumedAtPinnedAnswer(placeTopLevelCacheBreakpoint(original), threadPin), threadPin);
      // One literal without a spread: V8 defines each property written after a spread with a runtime call
      // (~1,300 instructions each on Node 24, callgrind), and `primaryModel: undefined` reads as absent.
      const routing = planAttempts({
        request,
        primaryModel: chosen?.model,
        callerKeyHash: context.caller.keyHash,
        region: context.region,
        models: deps.view.model,
        credentials,
        sharedProviders: deps.view.sharedProviders,
        stats: deps.stats.snapshot,
        stickyPin: pin,
        stickyKind: sticky.source === 'content' ? 'content' : 'session',
        random,
        now,
      });
      const longContext = requestsLongContext(context.forwardHeaders);
      const otherOutputLimit = requestsOtherOutputLimit(context.forwardHeaders);
      const attempts = routing.attempts.map((planned) => toAttempt(planned, context.region, longContext, otherOutputLimit));
      return {
        request,
        requested: original.model,
        region: context.region,
        strategy: chosen ? `auto-router:${routing.strategy}` : routing.strategy,
        available: routing.available,
        attempts: threadAttempts(attempts, continued, threadPin),
        sticky: { key: sticky.key, pin },
        thread: threadsRequest(original) ? threadOfPlan(context.caller, threadPin) : undefined,
        autoRouter: chosen,
      };
    },

    recordThreadTurn(plan, turn) {
      if (!plan.thread) return;
      const resumeFrom = turn.upstreamMessageId === turn.clientMessageId ? undefined : turn.upstreamMessageId;
      void deps.sessions.threadAnswered(threadPinKey(plan.thread.scope, turn.clientMessageId), turn.attempt, resumeFrom, turn.pendingResults);
    },

    recordOutcomes(plan, outcomes, served) {
      for (const outcome of outcomes) {
        if (served !== null && outcome.index === served.index && (outcome.status === 'success' || outcome.status === 'refusal')) {
          const { attempt, durationMs } = outcome;
          // No count (a stream) or none produced: no throughput sample.
          deps.stats.record(attempt.model, attempt.provider.slug, { latencyMs: durationMs, durationMs, outputTokens: served.outputTokens || undefined });
          void deps.sessions.succeeded(plan.sticky.key, attempt);
          if (plan.thread && served.messageId) void deps.sessions.threadAnswered(threadPinKey(plan.thread.scope, served.messageId), attempt);
        } else if (isProviderFailure(outcome.status)) {
          void deps.sessions.failed(plan.sticky.key, plan.sticky.pin, outcome.attempt);
        }
      }
    },
  };
}

/**
 * The attempts of a continue turn: on the account pinned to its thread only; without a pin for the caller, on
 * the caller's own Anthropic-format keys only (a shared key's account holds every tenant's threads). Any
 * other request: all of them.
 */
function threadAttempts(attempts: Attempt[], continued: string | undefined, threadPin: StickyPin | null): Attempt[] {
  if (threadPin) return attemptsOnThreadAccount(attempts, threadPin);
  return continued === undefined ? attempts : attemptsOnCallersAccounts(attempts);
}

function threadOfPlan(caller: StickyScope, pin: StickyPin | null): NonNullable<RequestPlan['thread']> {
  const thread: NonNullable<RequestPlan['thread']> = { scope: caller };
  if (pin?.messageId !== undefined) thread.resumeFrom = pin.messageId;
  if (pin?.pendingResults !== undefined) thread.pendingResults = pin.pendingResults;
  return thread;
}

// Statuses in which the provider itself failed; a refusal, a feature the vendor lacks or a vanished
// credential says nothing against the provider a session is pinned to.
function isProviderFailure(status: AttemptOutcome['status']): boolean {
  return status !== 'success' && status !== 'refusal' && status !== 'unsupported' && status !== 'credential_unavailable';
}
