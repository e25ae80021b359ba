/**
 * A database error logged by the gateway names what failed (the error's class, its SQLSTATE, the table and
 * constraint) and never the query's parameters: drizzle's error message lists every bound value, which for a
 * generation record with content capture on is the prompt itself. A write made to fail by a check constraint
 * (a permanent rejection: the record is dropped) and one made to fail by a missing table (an outage: the batch
 * waits) each log their line; the prompt's marker is in neither, on PGlite and on PostgreSQL.
 */
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { callApi } from '#test/helpers/management-api.ts';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { testDrivers } from '#test/helpers/test-database.ts';
import { secretFormsIn } from '#test/helpers/secret-forms.ts';
import { distinctiveKey } from '#test/helpers/credential-gateway.ts';
import { ALPHA_FIRST, messageBody, postMessage } from '#test/integration/routing/routing-support.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';

const MARKER = distinctiveKey('promptmarker');

let setup: RecordsGateway | undefined;

afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** A gateway whose workspace stores prompts with its records. */
async function capturingGateway(driver: 'pglite' | 'postgres'): Promise<RecordsGateway> {
  const started = await startRecordsGateway({ driver, env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
  const settings = await callApi(started.gateway.baseUrl, 'PATCH', '/workspace/settings', { key: started.gateway.management_key, body: { store_content: true } });
  expect(settings.status, JSON.stringify(settings.body)).toBe(200);
  return started;
}

/** Sends one prompt holding the marker; returns the log lines written while its record was being written. */
async function promptAndLogs(gateway: RecordsGateway, logged: (line: string) => boolean): Promise<string[]> {
  const before = gateway.gateway.logs.length;
  gateway.alpha.enqueue(reply.fixture('anthropic-text'));
  const call = await postMessage(gateway.gateway, messageBody('test/primary', { ...ALPHA_FIRST, messages: [{ role: 'user', content: `Remember the code ${MARKER}` }] }));
  expect(call.status, JSON.stringify(call.body)).toBe(200);
  await expect.poll(() => gateway.gateway.logs.slice(before).some(logged), { timeout: 15_000 }).toBe(true);
  return gateway.gateway.logs.slice(before);
}

function errorOf(lines: readonly string[], message: string): Record<string, unknown> {
  const line = lines.find((candidate) => candidate.includes(message));
  return (JSON.parse(line ?? '{}') as { error?: Record<string, unknown> }).error ?? {};
}

describe.each(testDrivers())('database errors in the logs on %s', (driver) => {
  it('a record the database rejects (a check constraint) is logged by its code, table and constraint, without the prompt', async () => {
    setup = await capturingGateway(driver);
    await setup.gateway.server.database.db.execute(sql.raw('alter table generations add constraint no_new_records check (false) not valid'));
    const lines = await promptAndLogs(setup, (line) => line.includes('generation record rejected by the database'));
    expect(secretFormsIn(lines.join('\n'), [MARKER], 'the log')).toEqual([]);
    expect(errorOf(lines, 'generation record rejected by the database')).toMatchObject({ code: '23514', table: 'generations', constraint: 'no_new_records' });
  });

  it('a write that fails on a missing table is logged by its code, without the prompt', async () => {
    setup = await capturingGateway(driver);
    await setup.gateway.server.database.db.execute(sql.raw('alter table generations rename to generations_away'));
    try {
      const lines = await promptAndLogs(setup, (line) => line.includes('generation records cannot be written'));
      expect(secretFormsIn(lines.join('\n'), [MARKER], 'the log')).toEqual([]);
      expect(errorOf(lines, 'generation records cannot be written')).toMatchObject({ code: '42P01' });
    } finally {
      await setup.gateway.server.database.db.execute(sql.raw('alter table generations_away rename to generations'));
    }
  });
});
