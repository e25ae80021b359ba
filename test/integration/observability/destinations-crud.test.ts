/**
 * `/observability/destinations` over HTTP: create, list, read, change, delete; secrets encrypted at rest with
 * the key vault's envelope (no plaintext in the row) and never returned; kind rules as 400s naming the
 * field; another account's destination a 404; a destination from the configuration file receiving
 * generations of every workspace without being listed; and `/workspace/settings` validation.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { initAccount } from '#src/keys/accounts.ts';
import { ALPHA_FIRST, messageBody, postMessage } from '#test/integration/routing/routing-support.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';

let setup: RecordsGateway;
let fileHook: CaptureServer;

const api = (method: string, path: string, body?: unknown, key = setup.gateway.management_key) =>
  callApi(setup.gateway.baseUrl, method, path, { key, ...(body === undefined ? {} : { body }) });

beforeAll(async () => {
  fileHook = await startCaptureServer();
  setup = await startRecordsGateway({
    extraYaml: [
      'observability:',
      '  destinations:',
      `    - { name: ops-hook, kind: webhook, endpoint: "${fileHook.url}/ops", signing_secret: "\${TEST_FILE_HOOK_SECRET}" }`,
      '',
    ].join('\n'),
    env: { TEST_FILE_HOOK_SECRET: 'whsec_from_the_environment_1' },
  });
});
afterAll(async () => {
  await setup?.close();
  await fileHook?.close();
});

describe('/observability/destinations', () => {
  it('creates, reads, lists, changes and deletes, never returning a secret', async () => {
    const created = await api('POST', '/observability/destinations', {
      name: 'collector',
      kind: 'otlp',
      endpoint: 'http://127.0.0.1:1/v1/traces',
      headers: { Authorization: 'Bearer otlp-secret-token-42', 'X-Tenant': 'acme-secret-tenant' },
      sampling_rate: 0.25,
    });
    expect(created.status).toBe(201);
    const destination = created.body.data;
    expect(destination).toMatchObject({
      name: 'collector',
      kind: 'otlp',
      protocol: 'http/protobuf',
      header_names: ['authorization', 'x-tenant'],
      public_key: null,
      secret_label: null,
      sampling_rate: 0.25,
      include_content: false,
      disabled: false,
      workspace_id: setup.gateway.workspace_id,
    });
    expect(JSON.stringify(created.body)).not.toContain('otlp-secret-token-42');

    const result = (await setup.gateway.server.database.db.execute(sql`select * from observability_destinations where id = ${destination.id}`)) as unknown as { rows: Record<string, unknown>[] };
    const [row] = result.rows;
    const stored = JSON.stringify(row, (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : value));
    expect(stored).not.toContain('otlp-secret-token-42');
    expect(stored).not.toContain('acme-secret-tenant');
    expect(row?.master_key_id).toBeTruthy();

    expect((await api('GET', `/observability/destinations/${destination.id}`)).body.data).toEqual(destination);
    const listed = await api('GET', '/observability/destinations');
    expect(listed.body.data.map((entry: { id: string }) => entry.id)).toContain(destination.id);
    expect(listed.body.data.map((entry: { name: string }) => entry.name)).not.toContain('ops-hook');

    const patched = await api('PATCH', `/observability/destinations/${destination.id}`, { sampling_rate: 1, include_content: true, headers: { authorization: 'Bearer rotated-token-77' } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ sampling_rate: 1, include_content: true, header_names: ['authorization'] });
    expect(JSON.stringify(patched.body)).not.toContain('rotated-token-77');

    expect((await api('DELETE', `/observability/destinations/${destination.id}`)).status).toBe(204);
    expect((await api('GET', `/observability/destinations/${destination.id}`)).status).toBe(404);
    expect((await api('DELETE', `/observability/destinations/${destination.id}`)).status).toBe(404);
  });

  it('shows a masked label of a webhook or Langfuse secret', async () => {
    const hook = await api('POST', '/observability/destinations', { name: 'h', kind: 'webhook', endpoint: 'https://hooks.example.com/x', signing_secret: 'whsec_abcdefghijklmnop1234' });
    expect(hook.body.data.secret_label).toBe('whsec_…1234');
    const langfuse = await api('POST', '/observability/destinations', { name: 'l', kind: 'langfuse', endpoint: 'https://cloud.langfuse.com', public_key: 'pk-lf-1', secret_key: 'sk-lf-abcdefghijklmnop9876' });
    expect(langfuse.body.data).toMatchObject({ public_key: 'pk-lf-1', secret_label: 'sk-…9876' });
    for (const id of [hook.body.data.id, langfuse.body.data.id]) await api('DELETE', `/observability/destinations/${id}`);
  });

  it.each([
    [{ name: 'x', kind: 'webhook', endpoint: 'https://h.example.com' }, 'signing_secret is required for a webhook destination'],
    [{ name: 'x', kind: 'langfuse', endpoint: 'https://h.example.com', secret_key: 'sk' }, 'public_key is required for a langfuse destination'],
    [{ name: 'x', kind: 'otlp', endpoint: 'https://h.example.com', signing_secret: 'whsec_0123456789abcdef' }, 'signing_secret applies to webhook destinations, not otlp'],
    [{ name: 'x', kind: 'webhook', endpoint: 'https://h.example.com', signing_secret: 'whsec_0123456789abcdef', protocol: 'http/json' }, 'protocol applies to otlp destinations, not webhook'],
    [{ name: 'x', kind: 'otlp', endpoint: 'https://h.example.com', headers: { 'X-A': '1', 'x-a': '2' } }, 'headers names x-a twice'],
    // Blank credentials were stored, and every export with them failed.
    [{ name: 'x', kind: 'langfuse', endpoint: 'https://h.example.com', public_key: '  ', secret_key: 'sk-lf-1' }, 'public_key is blank (only white space): send the credential itself'],
    [{ name: 'x', kind: 'langfuse', endpoint: 'https://h.example.com', public_key: 'pk-lf-1', secret_key: ' \t ' }, 'secret_key is blank (only white space): send the credential itself'],
    [{ name: 'x', kind: 'webhook', endpoint: 'https://h.example.com', signing_secret: ' '.repeat(16) }, 'signing_secret is blank (only white space): send the credential itself'],
  ])('answers 400 naming the rule: %j', async (body, reason) => {
    const before = (await api('GET', '/observability/destinations?limit=100')).body;
    const response = await api('POST', '/observability/destinations', body);
    expect(response.status).toBe(400);
    expect(response.body.error.message).toBe(`Invalid request parameters: ${reason}`);
    expect((await api('GET', '/observability/destinations?limit=100')).body).toEqual(before);
  });

  it.each([
    [{ name: 'x', kind: 'smtp', endpoint: 'https://h.example.com' }],
    [{ name: 'x', kind: 'otlp', endpoint: 'ftp://h.example.com' }],
    [{ name: 'x', kind: 'otlp', endpoint: 'https://h.example.com', sampling_rate: 1.5 }],
    [{ name: 'x', kind: 'webhook', endpoint: 'https://h.example.com', signing_secret: 'short' }],
  ])('answers 400 for a value the spec refuses: %j', async (body) => {
    expect((await api('POST', '/observability/destinations', body)).status).toBe(400);
  });

  it('a PATCH of another kind\'s field is a 400; kind cannot change', async () => {
    const hook = await api('POST', '/observability/destinations', { name: 'h', kind: 'webhook', endpoint: 'https://hooks.example.com/x', signing_secret: 'whsec_abcdefghijklmnop1234' });
    const id = hook.body.data.id;
    expect((await api('PATCH', `/observability/destinations/${id}`, { public_key: 'pk' })).body.error.message).toBe('Invalid request parameters: public_key applies to langfuse destinations, not webhook');
    expect((await api('PATCH', `/observability/destinations/${id}`, { kind: 'otlp' })).status).toBe(400);
    await api('DELETE', `/observability/destinations/${id}`);
  });

  it('is tenant-isolated and needs a management key', async () => {
    const mine = await api('POST', '/observability/destinations', { name: 'mine', kind: 'webhook', endpoint: 'https://hooks.example.com/x', signing_secret: 'whsec_abcdefghijklmnop1234' });
    const other = await initAccount(setup.gateway.server.database, { name: 'other tenant' });
    const id = mine.body.data.id;
    expect((await api('GET', `/observability/destinations/${id}`, undefined, other.management_key)).status).toBe(404);
    expect((await api('PATCH', `/observability/destinations/${id}`, { name: 'stolen' }, other.management_key)).status).toBe(404);
    expect((await api('DELETE', `/observability/destinations/${id}`, undefined, other.management_key)).status).toBe(404);
    expect((await api('GET', '/observability/destinations', undefined, other.management_key)).body.total).toBe(0);
    expect((await api('GET', '/observability/destinations', undefined, setup.gateway.api_key)).status).toBe(403);
    expect((await api('POST', '/observability/destinations', { name: 'x', kind: 'otlp', endpoint: 'https://h.example.com', workspace_id: other.workspace_id })).body.error.message).toBe(
      'Invalid request parameters: workspace_id is not a workspace of this account',
    );
    await api('DELETE', `/observability/destinations/${id}`);
  });
});

describe('a destination in the configuration file', () => {
  it('receives the generations of every workspace, signed with the secret from the environment', async () => {
    setup.alpha.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));
    await setup.gateway.server.flushRecords();
    const requests = await fileHook.waitFor(1);
    const delivery = requests.find((request) => JSON.parse(request.body.toString()).id === call.headers.get('x-generation-id'));
    expect(delivery?.path).toBe('/ops');
    expect(delivery?.headers['x-switchboard-signature']).toMatch(/^t=\d+,v1=[a-f0-9]{64}$/);
  });
});

describe('/workspace/settings', () => {
  it('answers the defaults, changes what is given, and refuses what the spec does not allow', async () => {
    const other = await initAccount(setup.gateway.server.database, { name: 'settings tenant' });
    const defaults = await api('GET', '/workspace/settings', undefined, other.management_key);
    expect(defaults.body).toEqual({ data: { workspace_id: other.workspace_id, store_content: false, content_retention_days: 30, updated_at: null } });
    const changed = await api('PATCH', '/workspace/settings', { content_retention_days: 90 }, other.management_key);
    expect(changed.body.data).toMatchObject({ store_content: false, content_retention_days: 90 });
    expect((await api('PATCH', '/workspace/settings', { content_retention_days: 0 }, other.management_key)).status).toBe(400);
    expect((await api('PATCH', '/workspace/settings', { store_prompts: true }, other.management_key)).status).toBe(400);
    expect((await api('GET', '/workspace/settings', undefined, other.api_key)).status).toBe(403);
    // Another workspace's settings are untouched.
    expect((await api('GET', '/workspace/settings')).body.data.content_retention_days).toBe(30);
  });

  it('an empty PATCH changes nothing: the defaults keep updated_at null, changed settings keep theirs', async () => {
    const other = await initAccount(setup.gateway.server.database, { name: 'empty patch tenant' });
    const untouched = await api('PATCH', '/workspace/settings', {}, other.management_key);
    expect(untouched).toEqual({ status: 200, body: { data: { workspace_id: other.workspace_id, store_content: false, content_retention_days: 30, updated_at: null } } });
    expect((await api('GET', '/workspace/settings', undefined, other.management_key)).body.data.updated_at).toBeNull();
    const changed = await api('PATCH', '/workspace/settings', { store_content: true }, other.management_key);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await api('PATCH', '/workspace/settings', {}, other.management_key)).body).toEqual(changed.body);
  });
});
