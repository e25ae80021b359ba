/**
 * Builds `gateway_metadata`: how the gateway routed one request, in the interface's fields plus the list
 * of attempts. Only built when the client opted in with `X-Gateway-Metadata: enabled`.
 */
import type { GatewayMetadata, GenerationAttempt } from '#src/api-types.ts';
import type { AttemptRecord } from '#src/messages/run-attempts.ts';
import { isByok, type Attempt } from '#src/routing/attempt.ts';
import type { RequestPlan } from '#src/routing/plan-request.ts';

/** Everything the metadata is derived from. */
export interface MetadataInput {
  plan: Pick<RequestPlan, 'requested' | 'region' | 'strategy' | 'available' | 'circuitOpen'>;
  /** The attempt that answered (an answer, or the refusal returned). */
  served: Pick<Attempt, 'availableIndex' | 'credential'>;
  records: readonly AttemptRecord[];
  /** `performance.now()` when the request began. */
  startedAt: number;
}

// The runner returns the success (always the last record) or, when no attempt succeeded, the last refusal,
// which need not be the last record: later models may have failed outright.
function servedRecord(records: readonly AttemptRecord[]): AttemptRecord | undefined {
  return records.findLast((record) => record.status === 'success') ?? records.findLast((record) => record.status === 'refusal');
}

function describe(record: AttemptRecord): string {
  return `${record.attempt.model} on ${record.attempt.provider.displayName}`;
}

function summarize(input: MetadataInput, served: AttemptRecord | undefined): string {
  // In a tool loop the earlier steps' answers are records too; only what did not answer is a failure.
  const failures = input.records.filter((record) => record !== served && record.status !== 'success');
  const answered = served
    ? `served by ${describe(served)}${served.status === 'refusal' ? ' (refusal)' : ''}${isByok(input.served) ? ' with your key' : ''}`
    : 'not served';
  const circuits = input.plan.circuitOpen?.length
    ? `; ${input.plan.circuitOpen.map((endpoint) => `${endpoint.model} on ${endpoint.provider}`).join(', ')} moved last (circuit open)`
    : '';
  if (failures.length === 0) return `${answered} on the first attempt (${input.plan.strategy})${circuits}`;
  const failed = failures.map((record) => `${describe(record)} (${record.status.replaceAll('_', ' ')})`).join(', ');
  return `${failed} failed; ${answered}${circuits}`;
}

/** One attempt as `gateway_metadata.attempts` and the generation record show it (`response_model` when its answer named one). */
export function toGenerationAttempt(record: AttemptRecord): GenerationAttempt {
  const attempt: GenerationAttempt = {
    provider: record.attempt.provider.displayName,
    model: record.attempt.model,
    status: record.status,
    http_status: record.httpStatus,
    is_byok: isByok(record.attempt),
    duration_ms: record.durationMs,
  };
  // The vendor's name for the model that answered, beside the catalog slug; absent for an attempt that did not answer.
  if (record.responseModel !== undefined) attempt.response_model = record.responseModel;
  if (record.droppedFields !== undefined) attempt.dropped_fields = [...record.droppedFields];
  if (record.maxTokensSent !== undefined) attempt.max_tokens_sent = record.maxTokensSent;
  return attempt;
}

/** The `gateway_metadata` object of one response. */
export function buildGatewayMetadata(input: MetadataInput): GatewayMetadata {
  const { plan } = input;
  const served = servedRecord(input.records);
  return {
    attempt: served ? input.records.indexOf(served) + 1 : input.records.length,
    endpoints: {
      available: plan.available.map((endpoint, index) => ({ model: endpoint.model, provider: endpoint.provider, selected: index === input.served.availableIndex })),
      total: plan.available.length,
    },
    generation_time: Math.round(performance.now() - input.startedAt),
    is_byok: isByok(input.served),
    region: plan.region,
    requested: plan.requested,
    strategy: plan.strategy,
    summary: summarize(input, served),
    attempts: input.records.map(toGenerationAttempt),
    ...(plan.circuitOpen?.length
      ? { circuit_open: plan.circuitOpen.map((endpoint) => ({ model: endpoint.model, provider: endpoint.provider, retry_at: new Date(endpoint.retryAt).toISOString() })) }
      : {}),
  };
}
