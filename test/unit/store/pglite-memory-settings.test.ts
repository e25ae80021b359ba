/**
 * PGlite runs with shared memory sized for its one session (`max_connections=1`): the lock table is sized by the
 * number of backends, so this checks that one transaction can still lock far more relations than the gateway's
 * migrations create at once.
 */
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPglite } from '#src/store/drizzle.ts';
import { pgliteStartParams } from '#src/store/database.ts';

describe('PGLITE_MEMORY_SETTINGS', () => {
  let client: PGlite;

  beforeAll(async () => {
    const { PGlite: PGliteClass } = loadPglite();
    client = new PGliteClass({ startParams: pgliteStartParams(PGliteClass.defaultStartParams) });
    await client.waitReady;
  }, 60_000);

  afterAll(async () => {
    await client.close();
  });

  it('sizes shared memory for one session', async () => {
    const result = await client.query<{ max_connections: string }>('show max_connections');
    expect(result.rows[0]?.max_connections).toBe('1');
  });

  it('lets one transaction create and lock 200 tables with their indexes', async () => {
    const tables = Array.from({ length: 200 }, (_unused, index) => `create table lock_probe_${index} (id int primary key, name text unique);`);
    await client.exec(`begin;\n${tables.join('\n')}\ncommit;`);
    const created = await client.query<{ count: number }>(`select count(*)::int as count from pg_class where relname like 'lock_probe_%' and relkind = 'r'`);
    expect(created.rows[0]?.count).toBe(200);
  }, 60_000);
});
