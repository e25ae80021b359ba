/**
 * A credential written into a destination's URL (`https://user:secret@collector/v1/traces`) would bypass the
 * sealed secrets: the OTLP exporter sends it as Basic authentication, yet the endpoint is stored as it is and
 * returned by every read. So an endpoint with a user name or password is refused (400, naming neither), on
 * create and on change; credentials go where they are sealed (`headers`, `secret_key`, `signing_secret`).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi } from '#test/helpers/management-api.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';

let setup: RecordsGateway;
let collector: CaptureServer;

const REFUSED = 'Invalid request parameters: endpoint must not carry a user name or password; give credentials as headers (otlp), secret_key (langfuse) or signing_secret (webhook), which are stored encrypted';

function api(method: string, path: string, body?: unknown) {
  return callApi(setup.gateway.baseUrl, method, path, { key: setup.gateway.management_key, body });
}

beforeAll(async () => {
  collector = await startCaptureServer({ status: 200, body: {} });
  setup = await startRecordsGateway();
});
afterAll(async () => {
  await setup?.close();
  await collector?.close();
});

describe('a destination endpoint carrying credentials', () => {
  const secret = `urlsecret${randomBytes(16).toString('hex')}`;
  const withCredentials = () => collector.url.replace('http://', `http://tenant:${secret}@`);

  it.each([
    ['otlp', {}],
    ['webhook', { signing_secret: 'whsec_0123456789abcdef0123' }],
    ['langfuse', { public_key: 'pk-lf-test', secret_key: 'sk-lf-secret-9999' }],
  ])('is refused for %s on create, and stored nowhere', async (kind, secrets) => {
    const created = await api('POST', '/observability/destinations', { name: 'leaky', kind, endpoint: `${withCredentials()}/v1/traces`, ...secrets });
    expect(created).toEqual({ status: 400, body: { error: { code: 400, message: REFUSED } } });
    const listed = await api('GET', '/observability/destinations?limit=100');
    expect(JSON.stringify(listed.body)).not.toContain(secret);
  });

  it('is refused on change, leaving the destination as it was', async () => {
    const created = await api('POST', '/observability/destinations', { name: 'clean', kind: 'otlp', endpoint: `${collector.url}/v1/traces` });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const changed = await api('PATCH', `/observability/destinations/${id}`, { endpoint: `${withCredentials()}/v1/traces` });
    expect(changed).toEqual({ status: 400, body: { error: { code: 400, message: REFUSED } } });
    expect((await api('GET', `/observability/destinations/${id}`)).body.data.endpoint).toBe(`${collector.url}/v1/traces`);
    const passwordOnly = await api('PATCH', `/observability/destinations/${id}`, { endpoint: collector.url.replace('http://', `http://:${secret}@`) });
    expect(passwordOnly.status).toBe(400);
    expect(JSON.stringify(passwordOnly.body)).not.toContain(secret);
    expect(setup.gateway.logs.join('\n')).not.toContain(secret);
    await api('DELETE', `/observability/destinations/${id}`);
  });
});
