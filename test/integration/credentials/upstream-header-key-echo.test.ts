/**
 * A vendor (or a proxy in front of it) may quote the key it was sent in its response headers: a
 * `www-authenticate` challenge, a request id, a redirect's `location`, a cookie, or one of the rate-limit
 * headers the gateway passes on to a caller whose own key made the call. None of it may reach the client's
 * response headers, for the operator's key or a BYOK key, on an answer or on an error, streamed or not.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeReply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { distinctiveKey } from '#test/helpers/credential-gateway.ts';
import { secretFormsIn } from '#test/helpers/secret-forms.ts';
import { catalogYaml, createCredential, deleteCredential, messageBody, modelYaml } from '#test/integration/routing/routing-support.ts';

const OPERATOR_KEY = `sk-ant-${distinctiveKey('operatorheader')}`;

/** Headers quoting `key`, as a vendor or a proxy might send them. */
function echoingHeaders(key: string): Record<string, string> {
  return {
    'www-authenticate': `Bearer realm="api", error="invalid_token", token="${key}"`,
    'x-request-id': `req_${key}`,
    'set-cookie': `session=${Buffer.from(key).toString('base64')}; Path=/`,
    location: `https://api.example.test/v1/messages?key=${encodeURIComponent(key)}`,
    'anthropic-ratelimit-requests-remaining': key,
    'anthropic-ratelimit-tokens-reset': key,
  };
}

let gateway: TestGateway;
let upstream: FakeUpstream;

beforeAll(async () => {
  upstream = await startFakeAnthropic();
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [
        `  header-operator: { family: anthropic, display_name: "header-operator", base_url: "${upstream.url}", api_key: "${OPERATOR_KEY}" }`,
        `  header-byok: { family: anthropic, display_name: "header-byok", base_url: "${upstream.url}", api_key: "" }`,
      ],
      [modelYaml('test/header-operator', [{ provider: 'header-operator', model: 'up-operator', price: [1, 2] }]), modelYaml('test/header-byok', [{ provider: 'header-byok', model: 'up-byok', price: [1, 2] }])],
    ),
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

beforeEach(() => upstream.clear());

const REPLIES: readonly [string, (key: string) => FakeReply][] = [
  ['an answer', (key) => reply.fixture('anthropic-text', { headers: echoingHeaders(key) })],
  ['a rate limit', (key) => reply.error(429, { headers: echoingHeaders(key) })],
  ['an authentication error', (key) => reply.error(401, { headers: echoingHeaders(key) })],
];

describe.each(REPLIES)('response headers of %s quoting the key', (_name, answer) => {
  it.each([[false], [true]])('never reach the client, for the operator key or a BYOK key (stream %s)', async (stream) => {
    const byokKey = `sk-ant-${distinctiveKey('byokheader')}`;
    const id = await createCredential(gateway, { provider: 'header-byok', key: byokKey });
    try {
      for (const [model, key] of [['test/header-operator', OPERATOR_KEY], ['test/header-byok', byokKey]] as const) {
        upstream.enqueue(answer(key));
        const response = await fetch(`${gateway.baseUrl}/messages`, {
          method: 'POST',
          headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
          body: JSON.stringify(messageBody(model, { stream })),
        });
        const body = await response.text();
        const headers = [...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n');
        expect([...secretFormsIn(headers, [key], `${model}: a header`), ...secretFormsIn(body, [key], `${model}: the body`)]).toEqual([]);
      }
      expect(upstream.requests).toHaveLength(2);
    } finally {
      await deleteCredential(gateway, id);
    }
  });
});
