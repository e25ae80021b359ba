/**
 * Builds `gateway_metadata`: how the gateway routed one request, in the interface's fields plus the list
 * of attempts. Only built when the client opted in with `X-Gateway-Metadata: enabled`.
 */
import type { DataRegion, GatewayMetadata } from '#src/api-types.ts';
import type { AttemptRecord } from '#src/messages/run-attempts.ts';

/** One endpoint the plan considered, in plan order. */
export interface ConsideredEndpoint {
  model: string;
  provider: string;
}

/** Everything the metadata is derived from. */
export interface MetadataInput {
  requested: string;
  region: DataRegion;
  strategy: string;
  available: readonly ConsideredEndpoint[];
  /** Index into `available` of the endpoint that answered. */
  selectedIndex: number;
  records: readonly AttemptRecord[];
  isByok: boolean;
  startedAt: number;
}

/** Whether the client asked for routing metadata (the current header wins over the legacy one). */
export function wantsGatewayMetadata(headers: Record<string, string | string[] | undefined>): boolean {
  const value = headers['x-gateway-metadata'] ?? headers['x-gateway-experimental-metadata'];
  return value === 'enabled';
}

// The runner returns the success (always the last record) or, when no attempt succeeded, the last refusal,
// which need not be the last record: later models may have failed outright.
function servedRecord(records: readonly AttemptRecord[]): AttemptRecord | undefined {
  return records.findLast((record) => record.status === 'success') ?? records.findLast((record) => record.status === 'refusal');
}

function summarize(input: MetadataInput): string {
  const success = servedRecord(input.records);
  const failures = input.records.filter((record) => record !== success);
  const served = success
    ? `served by ${success.model} on ${success.provider}${success.status === 'refusal' ? ' (refusal)' : ''}${input.isByok ? ' with your key' : ''}`
    : 'not served';
  if (failures.length === 0) return `${served} on the first attempt (${input.strategy})`;
  const failed = failures.map((record) => `${record.model} on ${record.provider} (${record.status.replaceAll('_', ' ')})`).join(', ');
  return `${failed} failed; ${served}`;
}

/** The `gateway_metadata` object of one response. */
export function buildGatewayMetadata(input: MetadataInput): GatewayMetadata {
  // The attempt that answered: a refusal returned after later models failed is not the last record.
  const served = servedRecord(input.records);
  return {
    attempt: served ? input.records.indexOf(served) + 1 : input.records.length,
    endpoints: {
      available: input.available.map((endpoint, index) => ({ model: endpoint.model, provider: endpoint.provider, selected: index === input.selectedIndex })),
      total: input.available.length,
    },
    generation_time: Math.round(performance.now() - input.startedAt),
    is_byok: input.isByok,
    region: input.region,
    requested: input.requested,
    strategy: input.strategy,
    summary: summarize(input),
    attempts: input.records.map(({ provider, model, status, http_status, is_byok, duration_ms }) => ({ provider, model, status, http_status, is_byok, duration_ms })),
  };
}
