/**
 * `switchboard usage` run as a real subprocess (like test/integration/credentials/cli.test.ts) on the records
 * real traffic left, on PGlite and PostgreSQL: totals by day, model, provider and key as tables, the same
 * numbers with `--json`, an account and time filter, and usage errors.
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { testDrivers } from '#test/helpers/test-database.ts';
import { ALPHA_FIRST, messageBody, postMessage } from '#test/integration/routing/routing-support.ts';
import { costOf, startRecordsGateway, type RecordsGateway } from './observability-support.ts';

const CLI = fileURLToPath(new URL('../../../src/cli.ts', import.meta.url));

function runCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe.each(testDrivers())('switchboard usage on %s', (driver) => {
  let setup: RecordsGateway;
  let env: Record<string, string>;
  let secondKeyHash: string;

  beforeAll(async () => {
    setup = await startRecordsGateway({ driver });
    const second = await callApi(setup.gateway.baseUrl, 'POST', '/keys', { key: setup.gateway.management_key, body: { kind: 'inference', name: 'second' } });
    secondKeyHash = second.body.data.hash;
    setup.alpha.enqueue(reply.fixture('anthropic-text'), reply.fixture('anthropic-text'), reply.fixture('anthropic-text'));
    setup.beta.enqueue(reply.fixture('anthropic-text'));
    for (let index = 0; index < 2; index += 1) await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST));
    await postMessage({ ...setup.gateway, api_key: second.body.data.key }, messageBody('test/primary', ALPHA_FIRST));
    await postMessage(setup.gateway, messageBody('test/other'));
    await setup.gateway.server.flushRecords();
    // The CLI opens the database itself: the gateway lets go of it first.
    await setup.gateway.server.close();
    if (driver === 'pglite') await setup.gateway.testDatabase.database.close();
    env = driver === 'pglite' ? { SWITCHBOARD_DATA_DIR: setup.gateway.testDatabase.dataDir! } : { DATABASE_URL: setup.gateway.testDatabase.databaseUrl! };
  });
  afterAll(async () => {
    await Promise.all([setup?.alpha.close(), setup?.beta.close()]);
    if (driver === 'pglite') rmSync(setup.gateway.testDatabase.dataDir!, { recursive: true, force: true });
    else await setup?.gateway.testDatabase.drop();
  });

  it('prints totals by day, model, provider and key as tables', async () => {
    const result = await runCli(['usage'], env);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const sections = result.stdout.trim().split('\n\n');
    expect(sections.map((section) => section.split(/\s+/)[0])).toEqual(['day', 'model', 'provider', 'key', 'total']);
    const row = (section: number, key: string) => sections[section]!.split('\n').find((line) => line.startsWith(key))?.trim().split(/\s{2,}/);
    const today = new Date().toISOString().slice(0, 10);
    expect(row(0, today)).toEqual([today, '4', '48', '116', '0', '0', '0', costOf(48, 116).toFixed(6)]);
    expect(row(1, 'test/primary')?.slice(1, 4)).toEqual(['3', '36', '87']);
    expect(row(1, 'test/other')?.slice(1, 4)).toEqual(['1', '12', '29']);
    expect(row(2, 'alpha')?.[1]).toBe('3');
    expect(row(2, 'beta')?.[1]).toBe('1');
    expect(row(3, setup.gateway.api_key_hash)?.[1]).toBe('3');
    expect(row(3, secondKeyHash)?.[1]).toBe('1');
    expect(sections[0]!.split('\n')[0]).toMatch(/^day\s+requests\s+input\s+output\s+cache read\s+cache write\s+reasoning\s+cost \(USD\)$/);
  }, 120_000);

  it('prints the same numbers as JSON, for one account, one dimension and a time range', async () => {
    const result = await runCli(['usage', '--json', '--account', setup.gateway.account_id], env);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.totals).toMatchObject({ requests: 4, input_tokens: 48, output_tokens: 116, cost: expect.closeTo(costOf(48, 116), 12) });
    expect(report.by_model.map((entry: { key: string; requests: number }) => [entry.key, entry.requests]).sort()).toEqual([
      ['test/other', 1],
      ['test/primary', 3],
    ]);
    expect(Object.keys(report).sort()).toEqual(['by_day', 'by_key', 'by_model', 'by_provider', 'totals']);

    const provider = JSON.parse((await runCli(['usage', '--json', '--by', 'provider'], env)).stdout);
    expect(Object.keys(provider).sort()).toEqual(['by_provider', 'totals']);
    const future = JSON.parse((await runCli(['usage', '--json', '--from', '2999-01-01'], env)).stdout);
    expect(future.totals.requests).toBe(0);
    const otherAccount = JSON.parse((await runCli(['usage', '--json', '--account', '00000000-0000-4000-8000-000000000000'], env)).stdout);
    expect(otherAccount.totals.requests).toBe(0);
  }, 120_000);

  it('answers a usage error with the usage and exit code 2', async () => {
    for (const args of [['usage', '--by', 'week'], ['usage', '--from', 'yesterday'], ['usage', '--account', 'acme']]) {
      const result = await runCli(args, env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('Usage:');
    }
    // Dates JavaScript would read leniently (`1` as 2001-01-01, `11/30/2025` in the machine's time zone) are
    // refused, not summed over another range; so is a time without its offset, as GET /generations does.
    for (const value of ['1', '11/30/2025', '2025-11-01 10:00', '2025-11-01T10:00:00', '2025-02-30']) {
      const result = await runCli(['usage', '--to', value], env);
      expect(result.code, value).toBe(2);
      expect(result.stderr).toContain(`--to must be a date (2025-11-01) or a date-time with its offset (2025-11-01T10:00:00Z), got ${JSON.stringify(value)}`);
    }
    // One at a time: PGlite's data directory takes one process.
    for (const value of ['2999-01-01', '2999-01-01T00:00:00+02:00', '2999-01-01T00:00:00.5Z']) {
      const result = await runCli(['usage', '--json', '--from', value], env);
      expect(result.code, `${value}: ${result.stderr}`).toBe(0);
      expect(JSON.parse(result.stdout).totals.requests).toBe(0);
    }
  }, 120_000);
});
