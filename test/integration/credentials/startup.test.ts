/**
 * What the credential half does when the gateway starts: seed the bootstrap management key, generate the
 * embedded master key once, refuse PostgreSQL without a master key, and refuse a PGlite data directory
 * another gateway holds, with a message that says what to do.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '#src/config.ts';
import { createLogger } from '#src/logger.ts';
import { startServer, type RunningServer } from '#src/server.ts';
import { MASTER_KEY_FILE_NAME } from '#src/byok/master-key.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { openTestDatabase, testDrivers, type TestDatabase } from '#test/helpers/test-database.ts';

const quietLogger = () => {
  const lines: string[] = [];
  return { lines, logger: createLogger({ level: 'debug', sink: (line) => lines.push(line) }) };
};

describe('gateway start on PGlite', () => {
  const running: RunningServer[] = [];
  afterAll(async () => {
    for (const server of running) await server.close();
  });

  it('generates the master key once (0600), seeds the bootstrap key, and a second gateway on the data dir refuses', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-start-'));
    const bootstrap = `sb-${randomBytes(32).toString('base64url')}`;
    const env = { PORT: '0', SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_BOOTSTRAP_MANAGEMENT_KEY: bootstrap };
    const { lines, logger } = quietLogger();
    const server = await startServer({ config: loadConfig(env), logger, env });
    running.push(server);
    expect(statSync(join(dataDir, MASTER_KEY_FILE_NAME)).mode & 0o777).toBe(0o600);

    const keys = await callApi(`${server.origin}/api/v1`, 'GET', '/keys', { key: bootstrap });
    expect(keys.status).toBe(200);
    expect(keys.body.data).toHaveLength(1);
    expect(keys.body.data[0]).toMatchObject({ kind: 'management', name: 'bootstrap' });
    expect(lines.join('\n')).not.toContain(bootstrap);

    const second = startServer({ config: loadConfig(env), logger, env });
    await expect(second).rejects.toThrow(/is in use by a running Switchboard gateway .*Stop that process first, or manage keys and credentials through the running gateway's HTTP API/s);
  });
});

describe.each(testDrivers().filter((driver) => driver === 'postgres'))('gateway start on %s', () => {
  let testDatabase: TestDatabase | undefined;
  afterAll(async () => {
    await testDatabase?.drop();
  });

  it('refuses to start without SWITCHBOARD_MASTER_KEY, saying what to set', async () => {
    testDatabase = await openTestDatabase('postgres');
    const env = { PORT: '0', DATABASE_URL: testDatabase.databaseUrl! };
    const { logger } = quietLogger();
    await expect(startServer({ config: loadConfig(env), logger, env })).rejects.toThrow(
      /SWITCHBOARD_MASTER_KEY is required when DATABASE_URL is set.*openssl rand -base64 32/s,
    );
  });

  it('seeds the bootstrap key once even when two instances start at once', async () => {
    testDatabase ??= await openTestDatabase('postgres');
    const bootstrap = `sb-${randomBytes(32).toString('base64url')}`;
    const env = {
      PORT: '0',
      DATABASE_URL: testDatabase.databaseUrl!,
      SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('hex'),
      SWITCHBOARD_BOOTSTRAP_MANAGEMENT_KEY: bootstrap,
    };
    const servers = await Promise.all([0, 1].map(() => startServer({ config: loadConfig(env), logger: quietLogger().logger, env })));
    try {
      for (const server of servers) {
        const keys = await callApi(`${server.origin}/api/v1`, 'GET', '/keys', { key: bootstrap });
        expect(keys.status).toBe(200);
        expect(keys.body.total).toBe(1);
      }
    } finally {
      for (const server of servers) await server.close();
    }
  });
});
