/**
 * PostgreSQL lost under a gateway process. With `pg_terminate_backend` on every connection of the gateway
 * (the database stays up), and then with the database unreachable (a proxy between the gateway and
 * PostgreSQL cuts every connection and refuses new ones): inference goes on from the in-memory key and
 * credential caches, management operations answer 503 in the error shape, generation records and key
 * spending wait, and once the database is back everything recovers without a restart. Needs DATABASE_URL;
 * in CI a missing one fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { testDrivers } from '#test/helpers/test-database.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { issueInferenceKey, processStore, startGatewayProcess, type GatewayProcess, type ProcessStore } from '#test/helpers/gateway-process.ts';
import { startTcpProxy, type TcpProxy } from '#test/helpers/tcp-proxy.ts';
import type { FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { limitsCatalog, listedKey, postWithKey, startAnsweringUpstream } from '#test/integration/limits/limits-support.ts';

const drivers = testDrivers();

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Requests sent one after another by `clients` clients until stopped; every answer must be 200. */
function traffic(gateway: GatewayProcess, key: string, clients: number): { ids: string[]; statuses: number[]; stop(): Promise<void> } {
  const ids: string[] = [];
  const statuses: number[] = [];
  let running = true;
  const loops = Array.from({ length: clients }, async () => {
    while (running) {
      const call = await postWithKey(gateway, key);
      statuses.push(call.status);
      if (call.status !== 200) throw new Error(`a request failed during the database outage: ${call.status} ${JSON.stringify(call.body)}`);
      ids.push(call.headers.get('x-generation-id') ?? '');
    }
  });
  return {
    ids,
    statuses,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

describe.skipIf(!drivers.includes('postgres'))('PostgreSQL lost under traffic', () => {
  let store: ProcessStore;
  let proxy: TcpProxy;
  let upstream: FakeUpstream;
  let gateway: GatewayProcess;
  let admin: pg.Client;

  beforeAll(async () => {
    store = await processStore('postgres');
    const direct = new URL(store.env.DATABASE_URL as string);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const proxied = new URL(direct);
    proxied.port = String(proxy.port);
    upstream = await startAnsweringUpstream({ delayMs: 5 });
    gateway = await startGatewayProcess({ env: { DATABASE_URL: proxied.toString(), SWITCHBOARD_RECORD_FLUSH_MS: '100' }, catalogYaml: limitsCatalog(upstream) });
    admin = new pg.Client({ connectionString: direct.toString() });
    await admin.connect();
  }, 60_000);
  afterAll(async () => {
    await gateway?.stop();
    await admin?.end();
    await proxy?.close();
    await store?.drop();
    await upstream?.close();
  });

  const gatewayConnections = async () =>
    Number((await admin.query('select count(*) as open from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()')).rows[0].open);
  const terminateGatewayConnections = () =>
    admin.query('select count(pg_terminate_backend(pid)) as killed from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
  const recordsOf = async (ids: readonly string[]) => (await admin.query('select count(*)::int as found from generations where id = any($1)', [ids])).rows[0].found as number;

  it('keeps answering while pg_terminate_backend kills every connection of the gateway, and recovers', async () => {
    const { key, hash } = await issueInferenceKey(gateway, { limit: 1_000 });
    const load = traffic(gateway, key, 4);
    try {
      await until(() => load.statuses.length >= 30, 'traffic before');
      for (let round = 0; round < 5; round += 1) {
        // Each round kills the connections the gateway made again since the last (a busy machine may take a moment).
        await until(async () => (await gatewayConnections()) > 0, `the gateway's connections before round ${round + 1}`);
        const killed = await terminateGatewayConnections();
        expect(Number(killed.rows[0].killed)).toBeGreaterThan(0);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      const atEnd = load.statuses.length;
      await until(() => load.statuses.length >= atEnd + 30, 'traffic after');
    } finally {
      await load.stop();
    }
    expect(load.statuses.every((status) => status === 200)).toBe(true);
    await until(async () => (await recordsOf(load.ids)) === load.ids.length, 'every record');
    const listed = await listedKey(gateway, hash);
    expect(listed.usage.cost).toBeGreaterThan(0);
  }, 60_000);

  it('serves inference from its caches while the database is unreachable, answers management with 503, and recovers on its own', async () => {
    const { key, hash } = await issueInferenceKey(gateway, { limit: 1_000, requests_per_minute: 100_000 });
    const load = traffic(gateway, key, 4);
    let outageIds: string[] = [];
    try {
      await until(() => load.statuses.length >= 30, 'traffic before');
      const atOutage = load.ids.length;
      await proxy.down();
      await terminateGatewayConnections();
      await until(() => load.statuses.length >= atOutage + 80, 'traffic during the outage');

      const keys = await callApi(gateway.baseUrl, 'GET', '/keys', { key: gateway.management_key });
      expect(keys).toEqual({ status: 503, body: { error: { code: 503, message: 'The database is unavailable; retry later' } } });
      const created = await callApi(gateway.baseUrl, 'POST', '/byok', { key: gateway.management_key, body: { provider: 'alpha', key: 'sk-alpha-byok-0001' } });
      expect(created.status).toBe(503);
      // A key the instance never saw cannot be checked: 503, retryable, in the messages error shape.
      const unknown = await postWithKey(gateway, 'sb-never-seen-key-000000000000000000000000000000000');
      expect(unknown.status).toBe(503);
      expect(unknown.body.error).toEqual({ type: 'overloaded_error', code: 503, message: 'The database is unavailable; retry later' });
      outageIds = load.ids.slice(atOutage);
      expect(await recordsOf(outageIds)).toBe(0);

      await proxy.up();
      await until(async () => (await callApi(gateway.baseUrl, 'GET', '/keys', { key: gateway.management_key })).status === 200, 'management operations back');
      const atReturn = load.statuses.length;
      await until(() => load.statuses.length >= atReturn + 30, 'traffic after');
    } finally {
      await load.stop();
    }
    expect(load.statuses.every((status) => status === 200)).toBe(true);
    // The records and the spending waited in memory, and are written now.
    await until(async () => (await recordsOf(load.ids)) === load.ids.length, 'every record, those of the outage included');
    const recorded = await admin.query('select sum(cost) as cost from generations where key_hash = $1', [hash]);
    await until(async () => Math.abs((await listedKey(gateway, hash)).usage.cost - Number(recorded.rows[0].cost)) < 1e-9, 'the spending of the outage');
    expect(gateway.logs.join('\n')).toContain('generation records cannot be written; they wait and are retried');
    expect(outageIds.length).toBeGreaterThan(0);
  }, 90_000);
});
