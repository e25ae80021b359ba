/**
 * The `switchboard` command line, run as a real subprocess: init, keys create/list/revoke, on PGlite and on
 * PostgreSQL; and its refusal, with advice, on a data directory a running gateway holds.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireDataDirectoryLock } from '#src/store/data-dir-lock.ts';
import { openTestDatabase, testDrivers, type TestDatabase } from '#test/helpers/test-database.ts';

const CLI = fileURLToPath(new URL('../../../src/cli.ts', import.meta.url));

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    const childEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...env };
    execFile(process.execPath, [CLI, ...args], { env: childEnv, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe.each(testDrivers())('switchboard CLI on %s', (driver) => {
  let env: Record<string, string>;
  let testDatabase: TestDatabase | undefined;
  let pgliteDataDir: string | undefined;

  beforeAll(async () => {
    if (driver === 'postgres') {
      testDatabase = await openTestDatabase('postgres');
      // The CLI opens its own connections; the helper's pool is not needed.
      env = { DATABASE_URL: testDatabase.databaseUrl! };
    } else {
      // A clone of the migrated template spares the CLI a first-time initdb; closed so the CLI can take the lock.
      const clone = await openTestDatabase('pglite');
      await clone.database.close();
      pgliteDataDir = clone.dataDir!;
      env = { SWITCHBOARD_DATA_DIR: pgliteDataDir };
    }
  });
  afterAll(async () => {
    await testDatabase?.drop();
    if (pgliteDataDir) rmSync(pgliteDataDir, { recursive: true, force: true });
  });

  it('init creates an account with two keys, then keys create, list and revoke manage them', async () => {
    const init = await runCli(['init', '--name', 'acme', '--json'], env);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(0);
    const account = JSON.parse(init.stdout) as Record<string, string>;
    expect(Object.keys(account).sort()).toEqual(['account_id', 'api_key', 'api_key_hash', 'management_key', 'workspace_id']);
    expect(account.management_key).toMatch(/^sb-[A-Za-z0-9_-]{43}$/);
    expect(account.api_key).toMatch(/^sb-[A-Za-z0-9_-]{43}$/);
    expect(account.api_key_hash).toMatch(/^[a-f0-9]{64}$/);

    const created = await runCli(['keys', 'create', '--account', account.account_id!, '--kind', 'inference', '--name', 'ci', '--json'], env);
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout) as { key: string; hash: string; kind: string; name: string };
    expect(key).toMatchObject({ kind: 'inference', name: 'ci' });

    const listed = await runCli(['keys', 'list', '--account', account.account_id!, '--json'], env);
    const keys = JSON.parse(listed.stdout) as { hash: string }[];
    expect(keys.map((entry) => entry.hash)).toEqual(expect.arrayContaining([key.hash, account.api_key_hash]));
    expect(listed.stdout).not.toContain(key.key);
    expect(listed.stdout).not.toContain(account.management_key);

    const revoked = await runCli(['keys', 'revoke', key.hash], env);
    expect(revoked.code).toBe(0);
    const after = JSON.parse((await runCli(['keys', 'list', '--account', account.account_id!, '--json'], env)).stdout) as { hash: string }[];
    expect(after.map((entry) => entry.hash)).not.toContain(key.hash);

    const again = await runCli(['keys', 'revoke', key.hash], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('No live key');
  }, 120_000);

  it('answers a usage error with the usage and exit code 2', async () => {
    const result = await runCli(['keys', 'create', '--kind', 'superuser'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Usage:');
  });

  it('refuses an --account that is not an account id before querying, as usage does', async () => {
    const revoke = ['keys', 'revoke', '--account', 'acme', '0'.repeat(64)];
    for (const args of [['keys', 'list', '--account', 'acme'], ['keys', 'create', '--account', 'acme', '--kind', 'inference'], revoke]) {
      const result = await runCli(args, env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('--account must be an account id (a UUID)');
      expect(result.stderr).not.toContain('Failed query');
    }
  }, 120_000);
});

describe('switchboard CLI on a data directory in use', () => {
  it('refuses and says to stop the gateway or use the HTTP API', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-cli-locked-'));
    const lock = acquireDataDirectoryLock(dataDir, 'gateway');
    try {
      const result = await runCli(['init', '--name', 'acme', '--json'], { SWITCHBOARD_DATA_DIR: dataDir });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`in use by a running Switchboard gateway (pid ${process.pid}`);
      expect(result.stderr).toContain('Stop that process first');
      expect(result.stderr).toContain('HTTP API with a management key');
      expect(result.stderr).not.toMatch(/\n\s+at /);
    } finally {
      lock.release();
    }
  });
});
