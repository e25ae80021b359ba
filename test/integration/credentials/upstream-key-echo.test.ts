/**
 * A vendor that rejects a request may quote the key it was sent ("invalid api key: …"). The gateway relays the
 * vendor's one-line message of an invalid request, so it must take a BYOK key out of that message by value: a
 * customer's key need not look like any pattern the logger knows. Checked over HTTP for every adapter family,
 * in the client's answer, in the generation record, in what a webhook destination receives and in the log lines.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, startFakeGemini, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { distinctiveKey } from '#test/helpers/credential-gateway.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { catalogYaml, createCredential, deleteCredential, errorMessage, messageBody, modelYaml, postMessage } from '#test/integration/routing/routing-support.ts';

interface Family {
  slug: string;
  start: () => Promise<FakeUpstream>;
  yaml: (upstream: FakeUpstream) => string;
}

const FAMILIES: readonly Family[] = [
  { slug: 'echo-anthropic', start: () => startFakeAnthropic(), yaml: (upstream) => `family: anthropic, base_url: "${upstream.url}"` },
  { slug: 'echo-chat', start: () => startFakeOpenAiChat(), yaml: (upstream) => `family: openai-chat, base_url: "${upstream.baseURL}"` },
  { slug: 'echo-compatible', start: () => startFakeOpenAiChat(), yaml: (upstream) => `family: openai-compatible, base_url: "${upstream.baseURL}"` },
  { slug: 'echo-google', start: () => startFakeGemini(), yaml: (upstream) => `family: google, base_url: "${upstream.baseURL}"` },
];

let gateway: TestGateway;
let hooks: CaptureServer;
const upstreams = new Map<string, FakeUpstream>();

beforeAll(async () => {
  for (const family of FAMILIES) upstreams.set(family.slug, await family.start());
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      FAMILIES.map((family) => `  ${family.slug}: { ${family.yaml(upstreams.get(family.slug) as FakeUpstream)}, display_name: "${family.slug}", api_key: "" }`),
      FAMILIES.map((family) => modelYaml(`test/${family.slug}`, [{ provider: family.slug, model: `up-${family.slug}`, price: [1, 2] }])),
    ),
    env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' },
  });
  hooks = await startCaptureServer();
  const destination = await callApi(gateway.baseUrl, 'POST', '/observability/destinations', {
    key: gateway.management_key,
    body: { name: 'hook', kind: 'webhook', endpoint: `${hooks.url}/hook`, signing_secret: 'whsec_0123456789abcdef0123' },
  });
  expect(destination.status, JSON.stringify(destination.body)).toBe(201);
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([...upstreams.values(), hooks].map((server) => server?.close()));
});

beforeEach(() => {
  for (const upstream of upstreams.values()) upstream.clear();
});

/** The body of the webhook delivery of a generation, once it arrived. */
async function waitForDelivery(generationId: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = hooks.requests.map((request) => request.body.toString('utf8')).find((body) => body.includes(generationId));
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no webhook delivery of ${generationId}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(FAMILIES.map((family) => [family.slug]))('a vendor quoting the BYOK key it rejected (%s)', (slug) => {
  it.each([[false], [true]])('never shows the key to the client, in the generation record or in a log line (stream %s)', async (stream) => {
    const key = distinctiveKey('customerkey');
    const id = await createCredential(gateway, { provider: slug, key });
    try {
      const upstream = upstreams.get(slug) as FakeUpstream;
      upstream.enqueue(reply.error(400, { message: `The API key ${key} is not valid for this project` }));
      const logsBefore = gateway.logs.length;

      // A stream refused before its first byte is answered as JSON, like any other request.
      const call = await postMessage(gateway, messageBody(`test/${slug}`, { stream }));

      expect(upstream.requests).toHaveLength(1);
      expect(call.status, JSON.stringify(call.body)).toBe(400);
      // The vendor's words still arrive, without the key.
      expect(errorMessage(call)).toContain('is not valid for this project');
      expect(JSON.stringify(call.body)).not.toContain(key);
      const generationId = call.headers.get('x-generation-id') ?? '';
      const record = await generationOf(gateway, generationId);
      expect(record.is_byok === true || record.attempts.some((attempt: { is_byok: boolean }) => attempt.is_byok)).toBe(true);
      expect(JSON.stringify(record)).not.toContain(key);
      const delivered = await waitForDelivery(generationId);
      expect(delivered).toContain('is not valid for this project');
      expect(delivered).not.toContain(key);
      expect(gateway.logs.slice(logsBefore).join('\n')).not.toContain(key);
    } finally {
      await deleteCredential(gateway, id);
    }
  });
});
