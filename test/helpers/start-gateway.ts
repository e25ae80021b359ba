/**
 * Starts the real gateway for a test, on 127.0.0.1 port 0, with response validation on, a fresh database
 * (PGlite by default, PostgreSQL with `driver: 'postgres'`), a catalog file pointing providers at fake
 * upstreams, and one account with a management key and an inference key. Log lines are captured.
 */
import type { LookupAll } from '#src/server-tools/web-fetch/guarded-dispatcher.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '#src/config.ts';
import { createLogger } from '#src/logger.ts';
import { startServer, type RunningServer } from '#src/server.ts';
import { initAccount, type InitializedAccount } from '#src/keys/accounts.ts';
import { openTestDatabase, type TestDatabase, type TestDatabaseDriver } from '#test/helpers/test-database.ts';
import { TEST_GATEWAY_ENV } from '#test/helpers/test-gateway-env.ts';

/** A gateway running for one test file. */
export interface TestGateway extends InitializedAccount {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** `http://127.0.0.1:<port>/api/v1` */
  baseUrl: string;
  server: RunningServer;
  /** The test database the gateway serves from (its connection string on PostgreSQL). */
  testDatabase: TestDatabase;
  logs: string[];
  close(): Promise<void>;
}

/** Options of a test gateway. */
export interface TestGatewayOptions {
  /** YAML of the catalog file (SWITCHBOARD_CONFIG); providers' base URLs point at fake upstreams. */
  catalogYaml?: string;
  driver?: TestDatabaseDriver;
  env?: Record<string, string>;
  /** How destination host names resolve (a test maps a name to 127.0.0.1 without any DNS). */
  resolveHost?: LookupAll;
  /**
   * The gateway's clock for model retirements (epoch milliseconds): places it on a date. Default: always
   * {@link TEST_GATEWAY_DATE}, so that a suite's routing does not change on the day a built-in endpoint
   * retires (Sonnet 4.5 on Anthropic's API, 2026-11-30).
   */
  now?: () => number;
}

/** The date a test gateway's catalog lifecycle is read at unless a test gives its own clock. */
export const TEST_GATEWAY_DATE = '2026-11-28T12:00:00Z';
const TEST_GATEWAY_TIME = Date.parse(TEST_GATEWAY_DATE);

/** Starts a gateway; call `close()` in `afterAll`. */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const directory = mkdtempSync(join(tmpdir(), 'switchboard-gateway-'));
  const env: NodeJS.ProcessEnv = {
    ...TEST_GATEWAY_ENV,
    SWITCHBOARD_MASTER_KEY: 'zZ8xQm3r5kq7b1vY2n0cL4sW6tH9uJ3eA5dF7gK1pR8=',
    SWITCHBOARD_LOG_LEVEL: 'debug',
    ...options.env,
  };
  if (options.catalogYaml !== undefined) {
    const file = join(directory, 'switchboard.yaml');
    writeFileSync(file, options.catalogYaml);
    env.SWITCHBOARD_CONFIG = file;
  }
  const config: Config = loadConfig(env);
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', sink: (line) => logs.push(line) });
  const database = await openTestDatabase(options.driver ?? 'pglite');
  const server = await startServer({ config, logger, database: database.database, env, ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}), now: options.now ?? (() => TEST_GATEWAY_TIME) });
  const account = await initAccount(database.database, { name: 'contract' });
  return {
    ...account,
    origin: server.origin,
    baseUrl: `${server.origin}/api/v1`,
    server,
    testDatabase: database,
    logs,
    async close() {
      await server.close();
      await database.drop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
