/**
 * A database outage mid-traffic never touches answers: records wait in the queue and arrive once the database
 * is back. On PostgreSQL the `generations` table is locked (every write hangs) and, to end it, the hung
 * writer's connection is killed with `pg_terminate_backend`; on PGlite, which runs in-process and cannot be stopped under a
 * running gateway, the table is taken away (renamed) so every write fails. (Killing every connection at the
 * start of the outage would also fail requests whose key lookup lands on a dying pooled connection: that is
 * the key cache's behaviour while its change feed is down, not the records'.) Either way answers keep their
 * latency, and after the outage every record is there. A full queue drops and counts instead of growing.
 */
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { testDrivers } from '#test/helpers/test-database.ts';
import { ALPHA_FIRST, messageBody, postMessage } from '#test/integration/routing/routing-support.ts';
import { startRecordsGateway, waitForGeneration, type RecordsGateway } from './observability-support.ts';

let setup: RecordsGateway | undefined;

afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

async function timedRequests(count: number): Promise<{ ids: string[]; durations: number[] }> {
  const ids: string[] = [];
  const durations: number[] = [];
  for (let index = 0; index < count; index += 1) {
    setup!.alpha.enqueue(reply.fixture('anthropic-text'));
    const started = performance.now();
    const call = await postMessage(setup!.gateway, messageBody('test/primary', ALPHA_FIRST));
    durations.push(performance.now() - started);
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    ids.push(call.headers.get('x-generation-id') ?? '');
  }
  return { ids, durations };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Makes the records' writes fail or hang; returns the function that ends the outage. */
async function startOutage(driver: 'pglite' | 'postgres'): Promise<() => Promise<void>> {
  const gateway = setup!.gateway;
  if (driver === 'pglite') {
    await gateway.server.database.db.execute(sql`alter table generations rename to generations_away`);
    return async () => {
      await gateway.server.database.db.execute(sql`alter table generations_away rename to generations`);
    };
  }
  const admin = new pg.Client({ connectionString: gateway.testDatabase.databaseUrl });
  await admin.connect();
  await admin.query('begin');
  await admin.query('lock table generations in access exclusive mode');
  const terminate = () => admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
  return async () => {
    // The writer's insert has been hanging on the lock: killing its connection fails it.
    await terminate();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await admin.query('rollback');
    await admin.end();
    // The gateway's change-feed listener reconnects after a second; until then caches ask the database.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
  };
}

describe.each(testDrivers())('records through a database outage on %s', (driver) => {
  it('answers keep their latency while records wait, and every record arrives after the outage', async () => {
    setup = await startRecordsGateway({ driver, env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
    const before = await timedRequests(8);
    await Promise.all(before.ids.map((id) => waitForGeneration(setup!.gateway, id)));

    const endOutage = await startOutage(driver);
    let during: Awaited<ReturnType<typeof timedRequests>>;
    try {
      during = await timedRequests(8);
      // Give the writer time to try (and fail or hang) a few times while the outage lasts.
      await new Promise((resolve) => setTimeout(resolve, 400));
    } finally {
      await endOutage();
    }
    expect(median(during.durations)).toBeLessThan(median(before.durations) + 100);

    for (const id of during.ids) {
      const record = await waitForGeneration(setup.gateway, id, 20_000);
      expect(record).toMatchObject({ id, status: 'success', usage: { input_tokens: 12, output_tokens: 29 } });
    }
    expect(setup.gateway.logs.join('\n')).toContain('generation records cannot be written; they wait and are retried');
  }, 90_000);
});

describe('a full record queue', () => {
  it('drops new records, counts them in a metric and says so in a log line, while answers go on', async () => {
    setup = await startRecordsGateway({ env: { SWITCHBOARD_RECORD_QUEUE_LIMIT: '2', SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
    const endOutage = await startOutage('pglite');
    try {
      const during = await timedRequests(5);
      expect(during.ids).toHaveLength(5);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const metrics = await (await fetch(`${setup.gateway.baseUrl}/metrics`, { headers: { authorization: `Bearer ${setup.gateway.management_key}` } })).text();
      expect(metrics).toMatch(/switchboard_generation_records_dropped_total\{reason="queue_full"\} 3\b/);
      expect(metrics).toMatch(/switchboard_generation_records_queue_depth 2\b/);
      expect(setup.gateway.logs.some((line) => line.includes('generation record queue full: records dropped'))).toBe(true);
    } finally {
      await endOutage();
    }
  });
});
