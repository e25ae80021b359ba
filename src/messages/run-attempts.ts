/**
 * Runs a routing plan's attempts in order until one answers. A retryable failure, a refusal or a vendor that
 * cannot express the request (`UnsupportedFeatureError`) moves on; any other failure caused by the request
 * itself stops at once, before another endpoint is called. The runner is generic over what an attempt produces
 * (a message, or a stream whose first event has arrived), so the same loop serves JSON, streams and, later,
 * every turn of the server-side tool loop.
 */
import { GatewayError, UnsupportedFeatureError, UpstreamError, type UpstreamFailureKind } from '#src/errors.ts';

/** What the runner needs to know about an attempt to report on it. */
export interface AttemptIdentity {
  model: string;
  providerSlug: string;
  providerName: string;
  isByok: boolean;
}

/** The outcome of one attempt, as reported in `gateway_metadata.attempts`. */
export interface AttemptRecord {
  provider: string;
  providerSlug: string;
  model: string;
  /** `unsupported`: the vendor cannot serve a feature the request uses; nothing was sent to it. */
  status: 'success' | 'unsupported' | UpstreamFailureKind;
  http_status: number | null;
  is_byok: boolean;
  duration_ms: number;
}

/** Options of one run. */
export interface RunAttemptsOptions<A, T> {
  attempts: readonly A[];
  identify(attempt: A): AttemptIdentity;
  execute(attempt: A, index: number): Promise<T>;
  /** A refusal moves on to the next model (not the next provider of the same model); the last one is returned. */
  isRefusal?(result: T): boolean;
  /** Called after each failed attempt, e.g. to drop a sticky pin or record endpoint health. */
  onFailure?(attempt: A, error: UpstreamError): void;
  /** Aborted when the client leaves or the request's time budget is spent. */
  signal: AbortSignal;
}

/** The answer of a successful run. */
export interface RunAttemptsResult<A, T> {
  result: T;
  attempt: A;
  /** 0-based index of the attempt that answered. */
  index: number;
  records: AttemptRecord[];
}

/** Every attempt failed: carries the records so the client learns what was tried. */
export class AllAttemptsFailedError extends GatewayError {
  readonly records: AttemptRecord[];

  constructor(records: AttemptRecord[], errors: UpstreamError[]) {
    super(statusForFailures(errors), summarizeFailures(records));
    this.records = records;
  }
}

function statusForFailures(errors: UpstreamError[]): number {
  if (errors.length > 0 && errors.every((error) => error.kind === 'rate_limited')) return 429;
  if (errors.length > 0 && errors.every((error) => error.kind === 'overloaded' || error.kind === 'timeout' || error.kind === 'rate_limited')) return 503;
  return 502;
}

function summarizeFailures(records: AttemptRecord[]): string {
  const parts = records.map((record) => `${record.model} on ${record.provider}: ${record.status.replaceAll('_', ' ')}${record.http_status ? ` (${record.http_status})` : ''}`);
  return `Every attempt failed: ${parts.join('; ')}`;
}

/** Runs the attempts in order and returns the first answer. */
export async function runAttempts<A, T>(options: RunAttemptsOptions<A, T>): Promise<RunAttemptsResult<A, T>> {
  const records: AttemptRecord[] = [];
  const errors: UpstreamError[] = [];
  let refused: { result: T; attempt: A; index: number } | undefined;
  // A set, not the last model: with partition "none" a refused model's endpoints can come back later in the plan.
  const refusedModels = new Set<string>();
  // An adapter's 400 names a feature its vendor lacks (an Anthropic server tool on OpenAI, say): another
  // endpoint may have it, so the plan goes on; when none can, the first such 400 is the answer.
  let unsupported: UnsupportedFeatureError | undefined;

  for (let index = 0; index < options.attempts.length; index += 1) {
    const attempt = options.attempts[index] as A;
    const identity = options.identify(attempt);
    if (refusedModels.has(identity.model)) continue;
    if (options.signal.aborted) break;
    const started = performance.now();
    const record = (status: AttemptRecord['status'], httpStatus: number | null): AttemptRecord => ({
      provider: identity.providerName,
      providerSlug: identity.providerSlug,
      model: identity.model,
      status,
      http_status: httpStatus,
      is_byok: identity.isByok,
      duration_ms: Math.round(performance.now() - started),
    });
    try {
      const result = await options.execute(attempt, index);
      if (options.isRefusal?.(result)) {
        records.push(record('refusal', 200));
        refused = { result, attempt, index };
        refusedModels.add(identity.model);
        continue;
      }
      records.push(record('success', 200));
      return { result, attempt, index, records };
    } catch (error) {
      if (error instanceof UnsupportedFeatureError) {
        records.push(record('unsupported', null));
        unsupported ??= error;
        continue;
      }
      if (!(error instanceof UpstreamError)) throw error;
      records.push(record(error.kind, error.upstreamStatus ?? null));
      options.onFailure?.(attempt, error);
      if (!error.fallbackEligible) throw error;
      errors.push(error);
    }
  }
  if (refused) return { ...refused, records };
  if (unsupported && errors.length === 0) throw unsupported;
  if (options.signal.aborted && errors.length === 0) {
    throw new GatewayError(503, 'The request ran out of time before any provider answered');
  }
  throw new AllAttemptsFailedError(records, errors);
}
