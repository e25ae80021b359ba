/**
 * The `moderation` plugin's screening: the texts the model reads (moderation-texts.ts) go to the configured engine (OpenAI's moderation
 * endpoint, or a catalog model) under the configured time limit. A flagged verdict ends the request with a
 * refusal; a failure of the screening itself fails closed (503, no model called) or open (served unscreened,
 * reported), as configured. Failure reasons shown to clients never carry an upstream's words.
 * @see ModerationPlugin in openapi/components/schemas/plugins.yaml
 */
import type { MessageRequest, ModerationReport } from '#src/api-types.ts';
import { GatewayError, ModerationUnavailableError } from '#src/errors.ts';
import { CreditLimitExceededError, KeyRateLimitedError } from '#src/limits/limit-answers.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import type { PluginHookDeps } from '#src/plugins/plugin-deps.ts';
import type { ModerationConfig } from '#src/plugins/plugins-config.ts';
import { planScreening, screenWithModel, type PlannedScreening } from '#src/plugins/moderation/model-moderation.ts';
import { describeScreening, type ModerationVerdict } from '#src/plugins/moderation/moderation-verdict.ts';
import { moderationTexts } from '#src/plugins/moderation/moderation-texts.ts';
import { screenWithOpenAi } from '#src/plugins/moderation/openai-moderation.ts';

/** How screening ended when the request goes on. */
export type ScreenOutcome = { kind: 'flagged'; verdict: ModerationVerdict } | { kind: 'passed'; report: ModerationReport };

/** A client-safe reason for a screening failure: a status, a timeout or the gateway's own words, never an upstream body. */
export function failureReason(error: unknown, timedOut: boolean, config: Pick<ModerationConfig, 'timeoutMs'>): string {
  if (timedOut) return `the moderation upstream did not answer within ${config.timeoutMs} ms`;
  if (error instanceof GatewayError) return error.publicMessage;
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number') return `the moderation upstream failed: ${status}`;
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'APIConnectionError' || name === 'APIConnectionTimeoutError') return 'the moderation upstream could not be reached';
  return error instanceof Error && error.constructor === Error ? error.message : 'the moderation upstream failed';
}

/** The screening to run: as planned before admission (null: plan it now), and whether the request's admission reserved it. */
export interface ScreeningRun {
  planned: PlannedScreening | null;
  /** The request's admission reserved the screening with itself (a plain request); a tool loop's is admitted on its own. */
  admitted: boolean;
}

/**
 * Plans the moderation model's screening of the request before the key's limits admit it (they reserve it
 * with the request); null for OpenAI's endpoint (free) or an input without text.
 */
export async function planModelScreening(deps: PluginHookDeps, config: ModerationConfig, request: MessageRequest, context: MessagesRequestContext): Promise<PlannedScreening | null> {
  if (config.engine !== 'model') return null;
  const texts = moderationTexts(request);
  return texts.length === 0 ? null : planScreening(deps, config, texts, context, deps.plugins.moderationPassed);
}

async function verdictOf(deps: PluginHookDeps, config: ModerationConfig, texts: string[], context: MessagesRequestContext, signal: AbortSignal, screening: ScreeningRun): Promise<ModerationVerdict> {
  switch (config.engine) {
    case 'openai': {
      const provider = deps.plugins.catalog.getProvider(config.provider);
      if (!provider) throw new Error(`the provider ${config.provider} is not in the catalog`);
      return screenWithOpenAi({ texts, config, provider, clients: deps.plugins.moderationClients, passed: deps.plugins.moderationPassed, accountId: context.caller.accountId, signal });
    }
    case 'model':
      const passed = deps.plugins.moderationPassed;
      return screenWithModel({ routing: deps, planned: screening.planned ?? (await planScreening(deps, config, texts, context, passed)), config, context, signal, admitted: screening.admitted, passed });
    default: {
      const unreachable: never = config.engine;
      throw new Error(`unknown moderation engine ${String(unreachable)}`);
    }
  }
}

/** The report of a screening that let the request through, with the model's screening call when one was charged. */
function report(status: ModerationReport['status'], context: MessagesRequestContext, note?: string): ModerationReport {
  return { id: 'moderation', status, ...(note !== undefined ? { note } : {}), ...(context.screening ? { screening: describeScreening(context.screening) } : {}) };
}

/**
 * Screens the request's input; throws `ModerationUnavailableError` when screening fails and the gateway fails
 * closed, and the key's 402 or 429 (never failed open) when its limits refuse the screening call.
 */
export async function screenInput(deps: PluginHookDeps, config: ModerationConfig, request: MessageRequest, context: MessagesRequestContext, screening: ScreeningRun): Promise<ScreenOutcome> {
  const texts = moderationTexts(request);
  if (texts.length === 0) return { kind: 'passed', report: { id: 'moderation', status: 'passed', note: 'the input has no text to screen' } };
  const timeout = AbortSignal.timeout(config.timeoutMs);
  const signal = AbortSignal.any([context.signal, timeout]);
  try {
    const verdict = await verdictOf(deps, config, texts, context, signal, screening);
    return verdict.flagged ? { kind: 'flagged', verdict } : { kind: 'passed', report: report('passed', context) };
  } catch (error) {
    if (context.signal.aborted || error instanceof CreditLimitExceededError || error instanceof KeyRateLimitedError) throw error;
    const reason = failureReason(error, timeout.aborted, config);
    deps.logger.warn('moderation screening failed', { generation_id: context.generationId, engine: config.engine, model: config.model, failure_mode: config.failureMode, reason, error_name: error instanceof Error ? error.name : typeof error });
    if (config.failureMode === 'fail_open') return { kind: 'passed', report: report('failed_open', context, reason) };
    throw new ModerationUnavailableError(reason, { cause: error });
  }
}
