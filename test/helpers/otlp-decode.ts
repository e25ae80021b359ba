/**
 * Decodes an OTLP/HTTP trace export as a collector would: protobuf with the official OpenTelemetry proto
 * definitions (test/fixtures/otlp, loaded by protobufjs), or the OTLP/JSON encoding. Both become the same
 * flat list of spans with hex ids and plain attribute values.
 */
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import protobuf from 'protobufjs';

const PROTO_ROOT = fileURLToPath(new URL('../fixtures/otlp/', import.meta.url));

/** One decoded span. */
export interface DecodedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  /** OTLP span flags: the W3C trace flags, and bits 8-9 saying whether the parent is known local or remote. */
  flags: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string };
  resource: Record<string, unknown>;
  scope: string;
}

let requestType: protobuf.Type | undefined;

function exportRequestType(): protobuf.Type {
  if (!requestType) {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => join(PROTO_ROOT, target);
    root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto', { keepCase: false });
    requestType = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
  }
  return requestType;
}

type AnyValue = { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };

function plain(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  return undefined;
}

function attributes(list: { key: string; value?: AnyValue }[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, plain(entry.value)]));
}

function hex(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  return '';
}

interface ExportRequest {
  resourceSpans?: { resource?: { attributes?: { key: string; value?: AnyValue }[] }; scopeSpans?: { scope?: { name?: string }; spans?: Record<string, any>[] }[] }[];
}

/** Decodes one export body by its content type. */
export function decodeTraceExport(body: Buffer, contentType: string | undefined): DecodedSpan[] {
  const request: ExportRequest = (contentType ?? '').includes('json')
    ? (JSON.parse(body.toString('utf8')) as ExportRequest)
    : (exportRequestType().toObject(exportRequestType().decode(body), { longs: String, enums: Number, defaults: false }) as ExportRequest);
  return (request.resourceSpans ?? []).flatMap((resourceSpans) =>
    (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
      (scopeSpans.spans ?? []).map((span) => ({
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: hex(span.parentSpanId),
        name: String(span.name),
        kind: Number(span.kind ?? 0),
        flags: Number(span.flags ?? 0),
        startTimeUnixNano: BigInt(span.startTimeUnixNano ?? 0),
        endTimeUnixNano: BigInt(span.endTimeUnixNano ?? 0),
        attributes: attributes(span.attributes),
        status: { code: Number(span.status?.code ?? 0), ...(span.status?.message ? { message: String(span.status.message) } : {}) },
        resource: attributes(resourceSpans.resource?.attributes),
        scope: String(scopeSpans.scope?.name ?? ''),
      })),
    ),
  );
}
