/**
 * Delivers generations to an OTLP/HTTP traces endpoint with OpenTelemetry's own exporter pieces: the HTTP
 * export delegate of `@opentelemetry/otlp-exporter-base` (transport, retries on retryable statuses, bounded
 * concurrency) under its `OTLPExporterBase`, with the protobuf or JSON trace serializer of
 * `@opentelemetry/otlp-transformer`. They are the parts `@opentelemetry/exporter-trace-otlp-proto` and
 * `-http` assemble, put together here with an explicit configuration instead: those exporters merge the
 * process's `OTEL_EXPORTER_OTLP_*` variables into every instance, so an operator's collector headers (a
 * token), compression or timeout would reach every workspace's destination. A destination gets exactly its
 * own endpoint and headers. Loaded when an OTLP destination's channel opens (`warm`), so a gateway without one
 * never loads them.
 */
import type { InstrumentationScope } from '@opentelemetry/core';
import type { SpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace';
import type { AgentOptions } from 'node:http';
import { userInfoAsBasic } from '#src/http/url-user-info.ts';
import { checkLiteralEndpoint } from '#src/observability/destinations/destination-address.ts';
import type { ActiveDestination } from '#src/observability/destinations/active-destination.ts';
import { OTLP_BATCH_SIZE, type BroadcastSettings } from '#src/observability/broadcast/broadcast-types.ts';
import { convertToOtelSpans, type SpanEnvironment } from '#src/observability/broadcast/convert-to-otel-spans.ts';
import { DeliveryFailedError, type DeliverySignals, type Sender } from '#src/observability/broadcast/sender.ts';

/** What the OpenTelemetry trace exporters send as Content-Type for each protocol. */
const CONTENT_TYPES: Record<ActiveDestination['protocol'], string> = { 'http/json': 'application/json', 'http/protobuf': 'application/x-protobuf' };
// The exporters' component type (semantic conventions, `otel.component.type`), for the delegate's own metrics.
const COMPONENT_TYPE = 'otlp_http_span_exporter';
// The exporters' default number of exports in flight at once.
const CONCURRENCY_LIMIT = 30;

/**
 * A trace exporter for one destination, configured only by the destination and the gateway's settings. The
 * delegate's transport retries on its own (within the export's time limit) and reads the headers before every
 * attempt: refusing them there is how `refused` ends an export's attempts (a destination deleted, disabled or
 * changed; a shutdown that allows no retry).
 */
async function createExporter(destination: ActiveDestination, headers: Record<string, string>, timeoutMillis: number, agentOptions: AgentOptions, refused: () => boolean): Promise<SpanExporter> {
  const [{ OTLPExporterBase }, { createOtlpHttpExportDelegate, httpAgentFactoryFromOptions }, transformer] = await Promise.all([
    import('@opentelemetry/otlp-exporter-base'),
    import('@opentelemetry/otlp-exporter-base/node-http'),
    import('@opentelemetry/otlp-transformer'),
  ]);
  const serializer = destination.protocol === 'http/json' ? transformer.JsonTraceSerializer : transformer.ProtobufTraceSerializer;
  // The endpoint's user-info goes as an explicit Basic header (node:http would derive one from the URL too),
  // so every kind of backend treats it alike. The exporters put their required Content-Type over whatever the
  // configured headers say; so does this.
  const call = userInfoAsBasic(destination.endpoint, headers);
  const requestHeaders = { ...call.headers, 'Content-Type': CONTENT_TYPES[destination.protocol] };
  const delegate = createOtlpHttpExportDelegate(
    {
      url: call.url,
      headers: async () => {
        if (refused()) throw new DeliveryFailedError('OTLP export stopped: the destination was removed or changed, or the gateway is shutting down');
        return { ...requestHeaders };
      },
      timeoutMillis,
      concurrencyLimit: CONCURRENCY_LIMIT,
      compression: 'none',
      agentFactory: httpAgentFactoryFromOptions(agentOptions),
      userAgent: undefined,
    },
    serializer,
    COMPONENT_TYPE,
    transformer.TraceExporterMetricsHelper,
    undefined,
  );
  return new OTLPExporterBase<ReadableSpan[]>(delegate);
}

/** Creates the sender of an OTLP destination. */
export function createOtlpSender(destination: ActiveDestination, settings: BroadcastSettings): Sender {
  let ready: Promise<{ exporter: SpanExporter; environment: SpanEnvironment }> | undefined;
  // The channel's signals (the same for every batch), from its first batch.
  let signals: DeliverySignals | undefined;
  // Exports whose first attempt has not read the headers yet. An export's first attempt reads them before any
  // timer can fire (the transport awaits only its agent and request function first), its retries only after a
  // backoff timer: so an attempt that finds none left is a retry, which `lastTry` refuses. (An export failing
  // before its first attempt, at the delegate's concurrency limit of 30, would leave one retry allowed.)
  let firstAttempts = 0;
  const refused = () => {
    const first = firstAttempts > 0;
    if (first) firstAttempts -= 1;
    return signals?.stop.aborted === true || (!first && signals?.lastTry.aborted === true);
  };
  const setup = async () => {
    const headers = Object.fromEntries(Object.entries(destination.secrets.headers).map(([name, value]) => [name, value.reveal()]));
    // The agent resolves names through the guarded lookup: a name whose address is not allowed never connects.
    const [exporter, { resourceFromAttributes }] = await Promise.all([createExporter(destination, headers, settings.timeoutMs, settings.network.agentOptions(), refused), import('@opentelemetry/resources')]);
    const scope: InstrumentationScope = { name: 'switchboard-gateway', version: settings.version };
    const resource = resourceFromAttributes({ 'service.name': 'switchboard', 'service.version': settings.version });
    return { exporter, environment: { resource, scope, includeContent: destination.includeContent } };
  };
  return {
    batchSize: OTLP_BATCH_SIZE,
    async warm() {
      ready ??= setup();
      // A failed setup fails each `send` instead, which counts and logs it.
      await ready.then(() => {}, () => {});
    },
    async send(items, given) {
      signals = given;
      try {
        checkLiteralEndpoint(destination.endpoint, settings.network.allowlist);
      } catch (error) {
        throw new DeliveryFailedError(`OTLP export refused (${(error as Error).message})`);
      }
      ready ??= setup();
      const { exporter, environment } = await ready;
      const spans: ReadableSpan[] = [];
      for (const item of items) convertToOtelSpans(item, environment, spans);
      firstAttempts += 1;
      const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));
      // ExportResultCode.SUCCESS is 0.
      if (result.code !== 0) throw new DeliveryFailedError(`OTLP export failed (${result.error?.message ?? 'no detail'})`);
    },
    async close() {
      // A setup that failed (its failure already reported by `send`) has no exporter to shut down.
      const loaded = await ready?.catch(() => undefined);
      if (!loaded) return;
      const { exporter } = loaded;
      // An export hanging on a dead collector must not hold up shutdown for its whole timeout.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exporter.shutdown().catch(() => {}), new Promise((resolve) => (timer = setTimeout(resolve, 1_000)))]);
      clearTimeout(timer);
    },
  };
}
