/**
 * Delivers generations to an OTLP/HTTP traces endpoint with the official OpenTelemetry exporters:
 * `@opentelemetry/exporter-trace-otlp-proto` for `http/protobuf`, `@opentelemetry/exporter-trace-otlp-http`
 * for `http/json`. Each is imported the first time a destination of its protocol is used, so a gateway
 * without OTLP destinations never loads them. The exporter does its own retries on retryable statuses.
 */
import type { InstrumentationScope } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { AgentOptions } from 'node:http';
import { checkLiteralEndpoint } from '#src/observability/destinations/destination-address.ts';
import type { ActiveDestination } from '#src/observability/destinations/active-destination.ts';
import { OTLP_BATCH_SIZE, type BroadcastSettings } from '#src/observability/broadcast/broadcast-types.ts';
import { convertToOtelSpans, type SpanEnvironment } from '#src/observability/broadcast/convert-to-otel-spans.ts';
import { DeliveryFailedError, type Sender } from '#src/observability/broadcast/sender.ts';

interface ExporterModule {
  OTLPTraceExporter: new (config: { url: string; headers: Record<string, string>; timeoutMillis: number; httpAgentOptions: AgentOptions }) => SpanExporter;
}

async function loadExporter(protocol: ActiveDestination['protocol']): Promise<ExporterModule> {
  switch (protocol) {
    case 'http/json':
      return (await import('@opentelemetry/exporter-trace-otlp-http')) as unknown as ExporterModule;
    case 'http/protobuf':
      return (await import('@opentelemetry/exporter-trace-otlp-proto')) as unknown as ExporterModule;
    default: {
      const unreachable: never = protocol;
      throw new Error(`unknown OTLP protocol ${String(unreachable)}`);
    }
  }
}

/** Creates the sender of an OTLP destination. */
export function createOtlpSender(destination: ActiveDestination, settings: BroadcastSettings): Sender {
  let ready: Promise<{ exporter: SpanExporter; environment: SpanEnvironment }> | undefined;
  const setup = async () => {
    const [{ OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([loadExporter(destination.protocol), import('@opentelemetry/resources')]);
    const headers = Object.fromEntries(Object.entries(destination.secrets.headers).map(([name, value]) => [name, value.reveal()]));
    // The agent resolves names through the guarded lookup: a name whose address is not allowed never connects.
    const exporter = new OTLPTraceExporter({ url: destination.endpoint, headers, timeoutMillis: settings.timeoutMs, httpAgentOptions: settings.network.agentOptions() });
    const scope: InstrumentationScope = { name: 'switchboard-gateway', version: settings.version };
    const resource = resourceFromAttributes({ 'service.name': 'switchboard', 'service.version': settings.version });
    return { exporter, environment: { resource, scope, includeContent: destination.includeContent } };
  };
  return {
    batchSize: OTLP_BATCH_SIZE,
    async send(items) {
      try {
        checkLiteralEndpoint(destination.endpoint, settings.network.allowlist);
      } catch (error) {
        throw new DeliveryFailedError(`OTLP export refused (${(error as Error).message})`);
      }
      ready ??= setup();
      const { exporter, environment } = await ready;
      const spans: ReadableSpan[] = [];
      for (const item of items) convertToOtelSpans(item, environment, spans);
      const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));
      // ExportResultCode.SUCCESS is 0.
      if (result.code !== 0) throw new DeliveryFailedError(`OTLP export failed (${result.error?.message ?? 'no detail'})`);
    },
    async close() {
      if (!ready) return;
      const { exporter } = await ready;
      // An export hanging on a dead collector must not hold up shutdown for its whole timeout.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exporter.shutdown().catch(() => {}), new Promise((resolve) => (timer = setTimeout(resolve, 1_000)))]);
      clearTimeout(timer);
    },
  };
}
