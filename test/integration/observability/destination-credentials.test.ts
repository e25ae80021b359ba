/**
 * Credentials written into a destination's URL (`https://user:secret@collector/v1/traces`) are HTTP Basic
 * authentication, as every HTTP client reads them: sealed with the destination's other secrets, shown as
 * `***@` by every read, and sent as `Authorization: Basic` to the URL without them (a webhook receiver behind
 * nginx's `auth_basic` gets its deliveries). Beside a second credential (an OTLP `authorization` header, a
 * Langfuse destination's keys) they are a 400 naming the field, never the password; `***` sent back where the
 * user-info goes is a 400 too, and the endpoint exactly as read back is no change.
 * And a sealed credential stays with the origin it was given for: moving a destination elsewhere needs it
 * given again, or anyone with a management key could point it at their own server to read it.
 */
import Anthropic from '@anthropic-ai/sdk';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { tableDump } from '#test/helpers/table-dump.ts';
import { ALPHA_FIRST } from '#test/integration/routing/routing-support.ts';
import { arrived } from './destination-receivers.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';

let setup: RecordsGateway;
let collector: CaptureServer;
let elsewhere: CaptureServer;

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
  const secret = `url@secret${randomBytes(16).toString('hex')}`;
  const basic = `Basic ${Buffer.from(`tenant:${secret}`).toString('base64')}`;
  const withCredentials = (origin: string) => origin.replace('http://', `http://tenant:${encodeURIComponent(secret)}@`);
  const shown = (origin: string) => origin.replace('http://', 'http://***@');
  const forms = [secret, encodeURIComponent(secret), basic.slice(6), basic.slice(6, 18)];
  const leaked = (text: string) => forms.filter((form) => text.includes(form));

  async function deliveredTo(receiver: CaptureServer, path: string): Promise<{ authorization: string | undefined }> {
    setup.alpha.enqueue(reply.fixture('anthropic-text'));
    const client = new Anthropic({ baseURL: `${setup.gateway.origin}/api`, authToken: setup.gateway.api_key, apiKey: null, maxRetries: 0 });
    const before = receiver.requests.length;
    await client.messages.create({ model: 'test/primary', max_tokens: 64, messages: [{ role: 'user', content: 'Hello there' }], ...ALPHA_FIRST });
    const request = await arrived(`a delivery to ${path}`, () => receiver.requests.slice(before).find((candidate) => candidate.path === path));
    return { authorization: request.headers.authorization };
  }

  it('is sealed, shown as ***@, and sent to a webhook as Basic authentication to the URL without it', async () => {
    const created = await api('POST', '/observability/destinations', { name: 'basic', kind: 'webhook', endpoint: `${withCredentials(collector.url)}/hook?tag=1`, signing_secret: 'whsec_0123456789abcdef0123' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id as string;
    expect(created.body.data.endpoint).toBe(`${shown(collector.url)}/hook?tag=***`);
    expect(await deliveredTo(collector, '/hook?tag=1')).toEqual({ authorization: basic });
    // The endpoint as read, sent back with another change, is no change: the sealed user-info stays.
    const renamed = await api('PATCH', `/observability/destinations/${id}`, { name: 'renamed', endpoint: `${shown(collector.url)}/hook?tag=***` });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(await deliveredTo(collector, '/hook?tag=1')).toEqual({ authorization: basic });
    // A new endpoint replaces it whole: without user-info, deliveries carry none.
    expect((await api('PATCH', `/observability/destinations/${id}`, { endpoint: `${collector.url}/plain` })).status).toBe(200);
    expect(await deliveredTo(collector, '/plain')).toEqual({ authorization: undefined });
    const listed = await api('GET', '/observability/destinations?limit=100');
    expect(leaked(JSON.stringify([created.body, renamed.body, listed.body]) + setup.gateway.logs.join('\n'))).toEqual([]);
    await api('DELETE', `/observability/destinations/${id}`);
  });

  it('is in no table in clear while stored', async () => {
    const created = await api('POST', '/observability/destinations', { name: 'stored', kind: 'webhook', endpoint: `${withCredentials(collector.url)}/hook`, signing_secret: 'whsec_0123456789abcdef0123' });
    expect(created.status).toBe(201);
    const tables = [...(await tableDump(setup.gateway)).values()].join('\n');
    expect(tables).toContain(`${shown(collector.url)}/hook`);
    expect(leaked(tables)).toEqual([]);
    await api('DELETE', `/observability/destinations/${created.body.data.id as string}`);
  });

  it.each([
    ['an OTLP destination with an authorization header', { kind: 'otlp', headers: { AuthoriZation: 'Bearer collector-token' } }, 'headers.AuthoriZation conflicts with the user name and password in endpoint, which are sent as Authorization: Basic; give one or the other'],
    ['a Langfuse destination', { kind: 'langfuse', public_key: 'pk-lf-test', secret_key: 'sk-lf-secret-9999' }, 'endpoint must not carry a user name or password for a langfuse destination: it authenticates with public_key and secret_key (sent as Basic authentication)'],
  ])('is refused for %s, naming the field, and stored nowhere', async (_name, fields, message) => {
    const created = await api('POST', '/observability/destinations', { name: 'twice', endpoint: `${withCredentials(collector.url)}/v1/traces`, ...fields });
    expect(created).toEqual({ status: 400, body: { error: { code: 400, message: `Invalid request parameters: ${message}` } } });
    const listed = await api('GET', '/observability/destinations?limit=100');
    expect(leaked(JSON.stringify(listed.body))).toEqual([]);
  });

  it('written with more slashes or backslashes after the scheme, as the URL parser also reads it, is sealed and shown as ***@ alike', async () => {
    const rest = collector.url.slice('http://'.length);
    const userInfo = `tenant:${encodeURIComponent(secret)}`;
    for (const [written, path] of [[`http:///${userInfo}@${rest}/one`, '/one'], [`http://\\${userInfo}@${rest}/two`, '/two'], [`http://\\/\\${userInfo}@${rest}/three`, '/three']] as const) {
      const created = await api('POST', '/observability/destinations', { name: 'slashes', kind: 'webhook', endpoint: written, signing_secret: 'whsec_0123456789abcdef0123' });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const id = created.body.data.id as string;
      expect(leaked(JSON.stringify(created.body)), written).toEqual([]);
      expect(created.body.data.endpoint).toContain('***@');
      expect(await deliveredTo(collector, path)).toEqual({ authorization: basic });
      const read = await api('GET', `/observability/destinations/${id}`);
      expect(leaked(JSON.stringify(read.body) + setup.gateway.logs.join('\n'))).toEqual([]);
      const tables = [...(await tableDump(setup.gateway)).values()].join('\n');
      expect(leaked(tables)).toEqual([]);
      await api('DELETE', `/observability/destinations/${id}`);
    }
  });

  it('on change: an authorization header beside the stored user-info, and *** given as the user-info, are refused', async () => {
    const created = await api('POST', '/observability/destinations', { name: 'otlp-basic', kind: 'otlp', endpoint: `${withCredentials(collector.url)}/v1/traces` });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.id as string;
    const header = await api('PATCH', `/observability/destinations/${id}`, { headers: { authorization: 'Bearer second-credential' } });
    expect(header).toEqual({ status: 400, body: { error: { code: 400, message: 'Invalid request parameters: headers.authorization conflicts with the user name and password in endpoint, which are sent as Authorization: Basic; give one or the other' } } });
    const redacted = await api('PATCH', `/observability/destinations/${id}`, { endpoint: `${shown(collector.url)}/otlp/v1/traces` });
    expect(redacted.status).toBe(400);
    expect(redacted.body.error.message).toContain('endpoint carries *** as a query value, user name or password');
    expect((await api('GET', `/observability/destinations/${id}`)).body.data.endpoint).toBe(`${shown(collector.url)}/v1/traces`);
    // Both at once, the endpoint without user-info: one credential, accepted.
    const swapped = await api('PATCH', `/observability/destinations/${id}`, { endpoint: `${collector.url}/v1/traces`, headers: { authorization: 'Bearer second-credential' } });
    expect(swapped.status, JSON.stringify(swapped.body)).toBe(200);
    expect(leaked(JSON.stringify([created.body, header.body, redacted.body]) + setup.gateway.logs.join('\n'))).toEqual([]);
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
