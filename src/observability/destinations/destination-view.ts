/** The wire shape (`ObservabilityDestination`) of a stored destination: never its sealed secrets, nor its endpoint's query values. */
import type { ObservabilityDestination } from '#src/api-types.ts';
import type { ObservabilityDestinationRow } from '#src/store/schema.ts';
import { redactEndpoint } from '#src/observability/destinations/endpoint-query.ts';

/** A stored destination as the API shows it. */
export function toDestinationView(row: ObservabilityDestinationRow): ObservabilityDestination {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    name: row.name,
    kind: row.kind,
    // Redacted again: a row written before query values were sealed holds them in clear.
    endpoint: redactEndpoint(row.endpoint),
    protocol: row.kind === 'otlp' ? (row.protocol ?? 'http/protobuf') : null,
    public_key: row.publicKey,
    header_names: row.headerNames,
    secret_label: row.secretLabel,
    sampling_rate: row.samplingRate,
    include_content: row.includeContent,
    disabled: row.disabled,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
