/**
 * Releasing PGlite's file-system bundle frees its buffer, and PostgreSQL still reads every bundled file it needs
 * after that (a time zone, a text-search dictionary, the PL/pgSQL library: each loaded from disk on first use).
 */
import { statSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPglite } from '#src/store/drizzle.ts';
import { pgliteStartParams } from '#src/store/database.ts';
import { pgliteBundlePath, releasePgliteFileBundle } from '#src/store/pglite-file-bundle.ts';

describe('releasePgliteFileBundle', () => {
  let client: PGlite;
  let freed = 0;
  let arrayBuffersBefore = 0;

  beforeAll(async () => {
    const { PGlite: PGliteClass } = loadPglite();
    client = new PGliteClass({ startParams: pgliteStartParams(PGliteClass.defaultStartParams) });
    await client.waitReady;
    arrayBuffersBefore = process.memoryUsage().arrayBuffers;
    freed = releasePgliteFileBundle(client);
  }, 60_000);

  afterAll(async () => {
    await client.close();
  });

  it('frees the whole bundle at once', () => {
    const size = statSync(pgliteBundlePath()).size;
    expect(freed).toBe(size);
    // Other buffers come and go meanwhile: the drop is the bundle's size give or take a little.
    expect(process.memoryUsage().arrayBuffers).toBeLessThan(arrayBuffersBefore - size + 2 ** 18);
  });

  it('changes nothing the second time', () => {
    expect(releasePgliteFileBundle(client)).toBe(0);
  });

  it('still reads bundled files PostgreSQL opens later', async () => {
    await client.exec(`set timezone = 'Europe/Paris'`);
    const time = await client.query<{ t: string }>(`select '2026-06-01 12:00:00+00'::timestamptz::text as t`);
    expect(time.rows[0]?.t).toBe('2026-06-01 14:00:00+02');
    const words = await client.query<{ v: string }>(`select to_tsvector('english', 'The running dogs')::text as v`);
    expect(words.rows[0]?.v).toBe(`'dog':3 'run':2`);
    await client.exec(`do $$ begin perform 1; end $$`);
    await client.exec(`reset timezone`);
  });
});
