/**
 * A credential written into a destination's URL (`https://user:secret@collector/v1/traces`) would bypass the
 * sealed secrets: the OTLP exporter sends it as Basic authentication, yet the endpoint is stored as it is and
 * returned by every read. So an endpoint with a user name or password is refused (400, naming neither), on
 * create and on change; credentials go where they are sealed (`headers`, `secret_key`, `signing_secret`).
 * And a sealed credential stays with the origin it was given for: moving a destination elsewhere needs it
 * given again, or anyone with a management key could point it at their own server to read it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi } from '#test/helpers/management-api.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';

let setup: RecordsGateway;
let collector: CaptureServer;
let elsewhere: CaptureServer;

const REFUSED = 'Invalid request parameters: endpoint must not carry a user name or password; give credentials as headers (otlp), secret_key (langfuse) or signing_secret (webhook), which are stored encrypted';

function api(method: string, path: string, body?: unknown) {
  return callApi(setup.gateway.baseUrl, method, path, { key: setup.gateway.management_key, body });
}

beforeAll(async () => {
  collector = await startCaptureServer({ status: 200, body: {} });
  elsewhere = await startCaptureServer({ status: 200, body: {} });
  setup = await startRecordsGateway();
});
afterAll(async () => {
  await setup?.close();
  await collector?.close();
  await elsewhere?.close();
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

describe('moving a destination to another origin', () => {
  const HEADERS_AGAIN = 'Invalid request parameters: headers must be given again to move endpoint to another origin: the stored headers are not sent to a new origin';
  const KEY_AGAIN = 'Invalid request parameters: secret_key must be given again to move endpoint to another origin: the stored secret_key is not sent to a new origin';

  it('needs the OTLP headers given again; a new path on the same origin does not', async () => {
    const created = await api('POST', '/observability/destinations', { name: 'otlp', kind: 'otlp', endpoint: `${collector.url}/v1/traces`, headers: { Authorization: 'Bearer collector-token' } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const moved = await api('PATCH', `/observability/destinations/${id}`, { endpoint: `${elsewhere.url}/v1/traces` });
    expect(moved).toEqual({ status: 400, body: { error: { code: 400, message: HEADERS_AGAIN } } });
    expect((await api('GET', `/observability/destinations/${id}`)).body.data.endpoint).toBe(`${collector.url}/v1/traces`);
    const samePlace = await api('PATCH', `/observability/destinations/${id}`, { endpoint: `${collector.url}/otlp/v1/traces` });
    expect(samePlace.status, JSON.stringify(samePlace.body)).toBe(200);
    const withHeaders = await api('PATCH', `/observability/destinations/${id}`, { endpoint: `${elsewhere.url}/v1/traces`, headers: { Authorization: 'Bearer elsewhere-token' } });
    expect(withHeaders.status, JSON.stringify(withHeaders.body)).toBe(200);
    expect(withHeaders.body.data.endpoint).toBe(`${elsewhere.url}/v1/traces`);
    await api('DELETE', `/observability/destinations/${id}`);
  });

  it('needs the Langfuse secret_key given again, and nothing for an OTLP destination without headers or a webhook', async () => {
    const langfuse = await api('POST', '/observability/destinations', { name: 'lf', kind: 'langfuse', endpoint: collector.url, public_key: 'pk-lf-1', secret_key: 'sk-lf-stored' });
    const langfuseId = langfuse.body.data.id as string;
    expect(await api('PATCH', `/observability/destinations/${langfuseId}`, { endpoint: elsewhere.url })).toEqual({ status: 400, body: { error: { code: 400, message: KEY_AGAIN } } });
    expect((await api('PATCH', `/observability/destinations/${langfuseId}`, { endpoint: elsewhere.url, secret_key: 'sk-lf-new' })).status).toBe(200);
    const bare = await api('POST', '/observability/destinations', { name: 'bare', kind: 'otlp', endpoint: `${collector.url}/v1/traces` });
    expect((await api('PATCH', `/observability/destinations/${bare.body.data.id as string}`, { endpoint: `${elsewhere.url}/v1/traces` })).status).toBe(200);
    const webhook = await api('POST', '/observability/destinations', { name: 'hook', kind: 'webhook', endpoint: `${collector.url}/hook`, signing_secret: 'whsec_0123456789abcdef0123' });
    expect((await api('PATCH', `/observability/destinations/${webhook.body.data.id as string}`, { endpoint: `${elsewhere.url}/hook` })).status).toBe(200);
    for (const id of [langfuseId, bare.body.data.id, webhook.body.data.id]) await api('DELETE', `/observability/destinations/${id as string}`);
  });
});
