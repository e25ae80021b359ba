/**
 * A token in a destination's endpoint query (`?api_key=…`, as some collectors and webhook receivers take it)
 * is a secret like the destination's others: sealed with them (not in clear in the row), returned as `***`
 * by create, read, list and change, kept by a change that does not give a new endpoint (or gives the one a
 * read showed), and sent as given, so deliveries still reach the real URL. A failing delivery's log line
 * never prints it. A row written before (its query in clear) is sealed when a gateway starts.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '#src/config.ts';
import { createLogger } from '#src/logger.ts';
import { startServer } from '#src/server.ts';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { TEST_GATEWAY_ENV } from '#test/helpers/test-gateway-env.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { ALPHA_FIRST, messageBody, postMessage } from '#test/integration/routing/routing-support.ts';
import { arrived } from './destination-receivers.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';

const SIGNING_SECRET = 'whsec_0123456789abcdef0123';
const TOKEN = `qtoken${randomBytes(12).toString('hex')}`;
let setup: RecordsGateway;
let hooks: CaptureServer;
let collector: CaptureServer;
let failing: CaptureServer;
let langfuse: CaptureServer;

const api = (method: string, path: string, body?: unknown) => callApi(setup.gateway.baseUrl, method, path, { key: setup.gateway.management_key, ...(body === undefined ? {} : { body }) });

async function storedRow(id: string): Promise<string> {
  const result = (await setup.gateway.server.database.db.execute(sql`select * from observability_destinations where id = ${id}`)) as unknown as { rows: Record<string, unknown>[] };
  expect(result.rows).toHaveLength(1);
  return JSON.stringify(result.rows[0], (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : value));
}

async function generation(): Promise<string> {
  setup.alpha.enqueue(reply.fixture('anthropic-text'));
  const call = await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));
  expect(call.status).toBe(200);
  await setup.gateway.server.flushRecords();
  return call.headers.get('x-generation-id') ?? '';
}

beforeAll(async () => {
  [hooks, collector, failing, langfuse] = await Promise.all([
    startCaptureServer(),
    startCaptureServer({ status: 200, body: {} }),
    startCaptureServer({ status: 500 }),
    startCaptureServer({ status: 207, body: { successes: [], errors: [] } }),
  ]);
  setup = await startRecordsGateway({ env: { SWITCHBOARD_BROADCAST_RETRY_MS: '20' } });
});
afterAll(async () => {
  await setup?.close();
  await Promise.all([hooks?.close(), collector?.close(), failing?.close(), langfuse?.close()]);
});

describe('a destination endpoint with a token in its query', () => {
  let hookId: string;

  it('is returned redacted by POST, GET one, GET list and a PATCH of other fields, and not stored in clear', async () => {
    const created = await api('POST', '/observability/destinations', { name: 'hook', kind: 'webhook', endpoint: `${hooks.url}/hook?api_key=${TOKEN}&region=eu&flag`, signing_secret: SIGNING_SECRET });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    hookId = created.body.data.id as string;
    const shown = `${hooks.url}/hook?api_key=***&region=***&***`;
    expect(created.body.data.endpoint).toBe(shown);
    expect((await api('GET', `/observability/destinations/${hookId}`)).body.data.endpoint).toBe(shown);
    const listed = await api('GET', '/observability/destinations?limit=100');
    expect(listed.body.data.find((entry: { id: string }) => entry.id === hookId)?.endpoint).toBe(shown);
    const patched = await api('PATCH', `/observability/destinations/${hookId}`, { name: 'renamed hook', sampling_rate: 1 });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ name: 'renamed hook', endpoint: shown });
    for (const body of [created.body, listed.body, patched.body]) expect(JSON.stringify(body)).not.toContain(TOKEN);

    const row = await storedRow(hookId);
    expect(row).not.toContain(TOKEN);
    expect(row).toContain('api_key=***');
  });

  it('is still delivered to as given, after a PATCH of other fields and a PATCH sending back the shown endpoint', async () => {
    const sentBack = await api('PATCH', `/observability/destinations/${hookId}`, { endpoint: `${hooks.url}/hook?api_key=***&region=***&***`, include_content: false });
    expect(sentBack.status, JSON.stringify(sentBack.body)).toBe(200);
    const id = await generation();
    const requests = await hooks.waitFor(1);
    const delivery = requests.find((request) => JSON.parse(request.body.toString()).id === id);
    expect(delivery?.path).toBe(`/hook?api_key=${TOKEN}&region=eu&flag`);
  });

  it('reaches an OTLP collector with its query', async () => {
    const created = await api('POST', '/observability/destinations', { name: 'otlp', kind: 'otlp', endpoint: `${collector.url}/v1/traces?token=${TOKEN}`, protocol: 'http/json' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.endpoint).toBe(`${collector.url}/v1/traces?token=***`);
    await generation();
    const [request] = await collector.waitFor(1);
    expect(request?.path).toBe(`/v1/traces?token=${TOKEN}`);
    await api('DELETE', `/observability/destinations/${created.body.data.id as string}`);
  });

  it('reaches Langfuse at the ingestion path under the base URL, the query after it', async () => {
    const created = await api('POST', '/observability/destinations', { name: 'lf', kind: 'langfuse', endpoint: `${langfuse.url}/proxy/?token=${TOKEN}`, public_key: 'pk-lf-q', secret_key: 'sk-lf-q-1234' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.endpoint).toBe(`${langfuse.url}/proxy/?token=***`);
    await generation();
    const [request] = await langfuse.waitFor(1);
    expect(request?.path).toBe(`/proxy/api/public/ingestion?token=${TOKEN}`);
    await api('DELETE', `/observability/destinations/${created.body.data.id as string}`);
  });

  it('refuses *** as a query value on create and on a change of endpoint, and a new endpoint replaces the query', async () => {
    const message = 'Invalid request parameters: endpoint carries *** as a query value, user name or password, the form responses show a stored value in; give the real value, or leave endpoint out to keep the stored one';
    expect(await api('POST', '/observability/destinations', { name: 'x', kind: 'otlp', endpoint: `${collector.url}/v1/traces?token=***` })).toEqual({ status: 400, body: { error: { code: 400, message } } });
    expect(await api('PATCH', `/observability/destinations/${hookId}`, { endpoint: `${hooks.url}/other?api_key=***` })).toEqual({ status: 400, body: { error: { code: 400, message } } });
    const moved = await api('PATCH', `/observability/destinations/${hookId}`, { endpoint: `${hooks.url}/plain` });
    expect(moved.body.data.endpoint).toBe(`${hooks.url}/plain`);
    expect(await storedRow(hookId)).not.toContain('api_key');
    await api('DELETE', `/observability/destinations/${hookId}`);
  });

  it('never appears in the log line of a failing delivery', async () => {
    const created = await api('POST', '/observability/destinations', { name: 'down', kind: 'webhook', endpoint: `${failing.url}/in?secret=${TOKEN}`, signing_secret: SIGNING_SECRET });
    expect(created.status).toBe(201);
    await generation();
    const deadline = Date.now() + 10_000;
    const failed = () => setup.gateway.logs.find((line) => line.includes('broadcast delivery failed') && line.includes(created.body.data.id as string));
    while (!failed() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(failed()).toContain('HTTP 500');
    expect(failing.requests.map((request) => request.path)).toContain(`/in?secret=${TOKEN}`);
    expect(setup.gateway.logs.join('\n')).not.toContain(TOKEN);
  });

  it('stored in clear by an earlier version is sealed when a gateway starts, and still delivered to', async () => {
    const created = await api('POST', '/observability/destinations', { name: 'legacy', kind: 'webhook', endpoint: `${hooks.url}/legacy`, signing_secret: SIGNING_SECRET });
    const id = created.body.data.id as string;
    const { database } = setup.gateway.server;
    // What an earlier version stored: the endpoint as given, its secrets sealed without the query.
    await database.db.execute(sql`update observability_destinations set endpoint = endpoint || ${`?api_key=${TOKEN}`} where id = ${id}`);
    expect(await storedRow(id)).toContain(TOKEN);

    const logs: string[] = [];
    const env = { ...TEST_GATEWAY_ENV, SWITCHBOARD_MASTER_KEY: 'zZ8xQm3r5kq7b1vY2n0cL4sW6tH9uJ3eA5dF7gK1pR8=' };
    const restarted = await startServer({ config: loadConfig(env), logger: createLogger({ level: 'debug', sink: (line) => logs.push(line) }), database, env });
    try {
      expect(logs.some((line) => line.includes('sealed the query of destination endpoints stored in clear'))).toBe(true);
    } finally {
      await restarted.close();
    }
    expect(await storedRow(id)).not.toContain(TOKEN);
    expect((await api('GET', `/observability/destinations/${id}`)).body.data.endpoint).toBe(`${hooks.url}/legacy?api_key=***`);

    // A change reloads the first gateway's destinations from the sealed row.
    expect((await api('PATCH', `/observability/destinations/${id}`, { name: 'legacy, sealed' })).status).toBe(200);
    hooks.requests.length = 0;
    const generationId = await generation();
    const requests = await hooks.waitFor(1);
    expect(requests.find((request) => JSON.parse(request.body.toString()).id === generationId)?.path).toBe(`/legacy?api_key=${TOKEN}`);
    expect(logs.join('\n')).not.toContain(TOKEN);
  });

  it('with user-info in clear too (as stored before user-info after extra slashes was recognised) has both sealed at start, and delivers with Basic', async () => {
    const password = `pw${randomBytes(12).toString('hex')}`;
    const created = await api('POST', '/observability/destinations', { name: 'legacy-user-info', kind: 'webhook', endpoint: `${hooks.url}/legacy-ui`, signing_secret: SIGNING_SECRET });
    const id = created.body.data.id as string;
    const { database } = setup.gateway.server;
    const clear = `${hooks.url.replace('http://', `http:///tenant:${password}@`)}/legacy-ui?api_key=${TOKEN}`;
    await database.db.execute(sql`update observability_destinations set endpoint = ${clear} where id = ${id}`);

    const logs: string[] = [];
    const env = { ...TEST_GATEWAY_ENV, SWITCHBOARD_MASTER_KEY: 'zZ8xQm3r5kq7b1vY2n0cL4sW6tH9uJ3eA5dF7gK1pR8=' };
    // Twice: the second start finds the user-info sealed (shown as ***@) and leaves it so.
    for (const _ of [1, 2]) await (await startServer({ config: loadConfig(env), logger: createLogger({ level: 'debug', sink: (line) => logs.push(line) }), database, env })).close();
    const row = await storedRow(id);
    expect(row).not.toContain(password);
    expect(row).not.toContain(TOKEN);
    expect((await api('GET', `/observability/destinations/${id}`)).body.data.endpoint).toBe(`${hooks.url.replace('http://', 'http:///***@')}/legacy-ui?api_key=***`);

    expect((await api('PATCH', `/observability/destinations/${id}`, { name: 'legacy-user-info, sealed' })).status).toBe(200);
    hooks.requests.length = 0;
    const generationId = await generation();
    // The destination of the test before delivers the generation to the same receiver.
    const request = await arrived('the delivery to /legacy-ui', () => hooks.requests.find((candidate) => candidate.path.startsWith('/legacy-ui') && JSON.parse(candidate.body.toString()).id === generationId));
    expect(request.path).toBe(`/legacy-ui?api_key=${TOKEN}`);
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`tenant:${password}`).toString('base64')}`);
    expect(logs.join('\n')).not.toContain(password);
  });
});
