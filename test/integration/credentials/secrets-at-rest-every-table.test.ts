/**
 * No secret rests readable in any table, not only the credential tables: after BYOK keys and destination
 * secrets (a webhook's signing secret, Langfuse's secret key, an OTLP Authorization header) were stored, and
 * requests were served and refused by a vendor that quoted the operator's key and a customer's key (with
 * content capture on, so prompts, completions and error text are written), every row of every table of the
 * schema is read, and none holds a raw secret as text, hex or base64, nor a run of one longer than a label's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { distinctiveKey } from '#test/helpers/credential-gateway.ts';
import { secretFormsIn } from '#test/helpers/secret-forms.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { testDrivers } from '#test/helpers/test-database.ts';
import { tableDump } from '#test/helpers/table-dump.ts';
import { waitForGeneration } from '#test/integration/observability/observability-support.ts';
import { catalogYaml, messageBody, modelYaml, postMessage } from '#test/integration/routing/routing-support.ts';

describe.each(testDrivers())('no secret in any table on %s', (driver) => {
  const operatorKey = `${distinctiveKey('operatorrest')}/+Q`;
  const byokKey = `${distinctiveKey('byokrest')}+/W`;
  const signingSecret = `whsec_${distinctiveKey('signing')}`;
  const langfuseSecret = `sk-lf-${distinctiveKey('langfuse')}`;
  const otlpToken = distinctiveKey('otlptoken');
  let upstream: FakeUpstream;
  let hooks: CaptureServer;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = await startFakeOpenAiChat();
    hooks = await startCaptureServer();
    gateway = await startTestGateway({
      driver,
      catalogYaml: catalogYaml(
        [
          `  rest-operator: { family: openai-chat, base_url: "${upstream.baseURL}", display_name: "rest-operator", api_key: "${operatorKey}" }`,
          `  rest-byok: { family: openai-chat, base_url: "${upstream.baseURL}", display_name: "rest-byok", api_key: "" }`,
        ],
        [modelYaml('test/rest-operator', [{ provider: 'rest-operator', model: 'up-operator', price: [1, 2] }]), modelYaml('test/rest-byok', [{ provider: 'rest-byok', model: 'up-byok', price: [1, 2] }])],
      ),
      env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' },
    });
    const api = (method: string, path: string, body?: unknown) => callApi(gateway.baseUrl, method, path, { key: gateway.management_key, body });
    expect((await api('PATCH', '/workspace/settings', { store_content: true })).status).toBe(200);
    expect((await api('POST', '/byok', { provider: 'rest-byok', key: byokKey })).status).toBe(201);
    for (const destination of [
      { name: 'hook', kind: 'webhook', endpoint: `${hooks.url}/hook`, signing_secret: signingSecret },
      { name: 'lf', kind: 'langfuse', endpoint: hooks.url, public_key: 'pk-lf-public', secret_key: langfuseSecret },
      { name: 'otlp', kind: 'otlp', endpoint: `${hooks.url}/v1/traces`, headers: { Authorization: `Bearer ${otlpToken}` } },
    ]) {
      const created = await api('POST', '/observability/destinations', destination);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    // A served request and two refused ones, the vendor quoting the key each was made with.
    upstream.enqueue(
      reply.fixture('openai-text.json'),
      reply.error(400, { message: `The API key ${operatorKey} (${encodeURIComponent(operatorKey)}) is not valid` }),
      reply.error(400, { message: `The API key ${Buffer.from(byokKey).toString('base64')} is not valid` }),
    );
    const ids: string[] = [];
    for (const model of ['test/rest-operator', 'test/rest-operator', 'test/rest-byok']) {
      const call = await postMessage(gateway, messageBody(model));
      ids.push(call.headers.get('x-generation-id') ?? '');
    }
    expect(upstream.requests).toHaveLength(3);
    for (const id of ids) await waitForGeneration(gateway, id);
  }, 120_000);

  afterAll(async () => {
    await gateway?.close();
    await Promise.all([upstream, hooks].map((server) => server?.close()));
  });

  it('no row of any table holds a secret in any form', async () => {
    const dumps = await tableDump(gateway);
    // The rows that should be there are: credentials, destinations, records with their content and errors.
    for (const table of ['byok_credentials', 'observability_destinations', 'generations', 'workspace_settings']) expect(dumps.get(table)?.length ?? 0, table).toBeGreaterThan(0);
    expect(dumps.get('generations')).toContain('is not valid');
    const secrets = [operatorKey, byokKey, signingSecret, langfuseSecret, otlpToken, gateway.management_key, gateway.api_key];
    expect([...dumps].flatMap(([table, dump]) => secretFormsIn(dump, secrets, table))).toEqual([]);
  });
});
