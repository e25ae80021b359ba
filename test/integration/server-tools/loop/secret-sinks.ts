/**
 * Every place a tool backend's words can end up, for the leak suites of the gateway's tools: a gateway on a
 * fake Anthropic upstream whose workspace stores content, exporting to a webhook, an OTLP collector
 * (OTLP/JSON) and Langfuse, all with content; and, after a suite's loops ran, what each of them holds as text:
 * the answers the client read, what the model was sent, the log lines, the generation records as
 * `GET /generations/{id}` shows them, every table of the database, each destination's deliveries and `/metrics`.
 */
import { callApi } from '#test/helpers/management-api.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { secretFormsIn } from '#test/helpers/secret-forms.ts';
import { tableDump } from '#test/helpers/table-dump.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { arrived, createDestination, INGESTION_PATH, startTraceReceivers, traceOf } from '#test/integration/observability/destination-receivers.ts';

/** The gateway and its receivers. */
export interface SinkGateway {
  upstream: FakeUpstream;
  gateway: TestGateway;
  webhook: CaptureServer;
  collector: CaptureServer;
  langfuse: CaptureServer;
  close(): Promise<void>;
}

/** Starts it with `serverTools` (lines of the configuration's `server_tools:` section, none: no section) and `env`. */
export async function startSinkGateway(serverTools: readonly string[], env: Record<string, string> = {}): Promise<SinkGateway> {
  const [upstream, webhook, receivers] = await Promise.all([startFakeAnthropic(), startCaptureServer({ status: 200, body: {} }), startTraceReceivers()]);
  const catalog = catalogYaml([anthropicProviderYaml('alpha', upstream)], [modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude', price: [3, 15] }])]);
  const gateway = await startTestGateway({ catalogYaml: serverTools.length === 0 ? catalog : `${catalog}${['server_tools:', ...serverTools].join('\n')}\n`, env: { SWITCHBOARD_RECORD_FLUSH_MS: '50', ...env } });
  const settings = await callApi(gateway.baseUrl, 'PATCH', '/workspace/settings', { key: gateway.management_key, body: { store_content: true } });
  if (settings.status !== 200) throw new Error(`PATCH /workspace/settings answered ${settings.status}`);
  await createDestination(gateway, { name: 'hook', kind: 'webhook', endpoint: `${webhook.url}/hook`, signing_secret: 'whsec_sinks-signing-secret', include_content: true });
  await createDestination(gateway, { name: 'traces', kind: 'otlp', endpoint: `${receivers.collector.url}/v1/traces`, protocol: 'http/json', include_content: true });
  await createDestination(gateway, { name: 'lf', kind: 'langfuse', endpoint: receivers.langfuse.url, public_key: 'pk-lf-sinks', secret_key: 'sk-lf-sinks-secret', include_content: true });
  return {
    upstream,
    gateway,
    webhook,
    ...receivers,
    async close() {
      await gateway.close();
      await Promise.all([upstream.close(), webhook.close(), receivers.collector.close(), receivers.langfuse.close()]);
    },
  };
}

/** The ids of every generation recorded so far. */
async function generationIds(gateway: TestGateway): Promise<string[]> {
  await gateway.server.flushRecords();
  const listed = await callApi(gateway.baseUrl, 'GET', '/generations?limit=100', { key: gateway.management_key });
  return (listed.body.data as { id: string }[]).map((generation) => generation.id);
}

/** The places a backend's words may end up. */
export type Sink = 'the answers' | 'the model\'s requests' | 'the log' | 'the records' | 'the database' | 'the webhook deliveries' | 'the OTLP exports' | 'the Langfuse batches' | '/metrics';

/**
 * What each place holds once every generation of `expected` count was recorded and delivered to each
 * destination; `answers` are what the client read (JSON bodies, stream events).
 */
export async function sinkTexts(setup: SinkGateway, answers: unknown, expected: number): Promise<Record<Sink, string>> {
  let recorded: string[] = [];
  const deadline = Date.now() + 15_000;
  while ((recorded = await generationIds(setup.gateway)).length < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (recorded.length < expected) throw new Error(`expected ${expected} generation records, found ${recorded.length}`);
  const records = await Promise.all(recorded.map(async (id) => (await callApi(setup.gateway.baseUrl, 'GET', `/generations/${id}`, { key: setup.gateway.management_key })).body as unknown));
  for (const id of recorded) await traceOf(setup.gateway, setup.collector, id);
  await arrived('a webhook delivery of every generation', () => (recorded.every((id) => setup.webhook.requests.some((request) => request.body.toString().includes(id))) ? true : undefined));
  await arrived('a Langfuse event of every generation', () => (recorded.every((id) => setup.langfuse.requests.some((request) => request.path === INGESTION_PATH && request.body.toString().includes(id))) ? true : undefined));
  const metrics = await fetch(`${setup.gateway.baseUrl}/metrics`, { headers: { authorization: `Bearer ${setup.gateway.management_key}` } });
  const bodies = (receiver: CaptureServer) => receiver.requests.map((request) => request.body.toString('utf8')).join('\n');
  return {
    'the answers': JSON.stringify(answers),
    'the model\'s requests': JSON.stringify(setup.upstream.requests),
    'the log': setup.gateway.logs.join('\n'),
    'the records': JSON.stringify(records),
    // Every row of every table: the backends' credentials are configuration, never stored.
    'the database': [...(await tableDump(setup.gateway)).values()].join('\n'),
    'the webhook deliveries': bodies(setup.webhook),
    'the OTLP exports': bodies(setup.collector),
    'the Langfuse batches': bodies(setup.langfuse),
    '/metrics': await metrics.text(),
  };
}

/** Every form of every secret found in any of `texts`, described (empty when none leaked). */
export function leaks(texts: Record<Sink, string>, secrets: readonly string[]): string[] {
  return Object.entries(texts).flatMap(([where, text]) => secretFormsIn(text, secrets, where));
}
