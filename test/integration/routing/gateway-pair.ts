/**
 * Two gateway instances sharing one database (and, through `REDIS_URL`, one sticky-session store), as two
 * replicas behind a load balancer would. On PostgreSQL (DATABASE_URL set) each instance opens its own
 * connection pool to the same per-test database; on PGlite, which one process owns, both share the open
 * database object.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '#src/config.ts';
import { createLogger } from '#src/logger.ts';
import { startServer, type RunningServer } from '#src/server.ts';
import { openDatabase, type Database } from '#src/store/database.ts';
import { initAccount, type InitializedAccount } from '#src/keys/accounts.ts';
import { openTestDatabase } from '#test/helpers/test-database.ts';

/** One instance of the pair: what the routing helpers need of a gateway. */
export interface PairMember extends InitializedAccount {
  origin: string;
  baseUrl: string;
}

/** Two instances over one database and one account. */
export interface GatewayPair {
  first: PairMember;
  second: PairMember;
  driver: 'pglite' | 'postgres';
  logs: string[];
  close(): Promise<void>;
}

/**
 * Starts two gateways on one fresh database, both with `env` (e.g. REDIS_URL) and the catalog file; the second
 * has `secondEnv` over it (instances configured differently).
 */
export async function startGatewayPair(options: { catalogYaml: string; env: Record<string, string>; secondEnv?: Record<string, string> }): Promise<GatewayPair> {
  const directory = mkdtempSync(join(tmpdir(), 'switchboard-pair-'));
  const catalogFile = join(directory, 'switchboard.yaml');
  writeFileSync(catalogFile, options.catalogYaml);
  const env: NodeJS.ProcessEnv = {
    PORT: '0',
    SWITCHBOARD_VALIDATE_RESPONSES: 'true',
    SWITCHBOARD_MASTER_KEY: 'zZ8xQm3r5kq7b1vY2n0cL4sW6tH9uJ3eA5dF7gK1pR8=',
    // Suites that script failures must see plain plan order; the breaker's own tests turn it on.
    SWITCHBOARD_CIRCUIT_FAILURES: '0',
    SWITCHBOARD_CONFIG: catalogFile,
    ...options.env,
  };
  const logs: string[] = [];
  const driver = process.env.DATABASE_URL ? 'postgres' : 'pglite';
  const testDatabase = await openTestDatabase(driver);
  const secondDatabase: Database =
    driver === 'postgres' && testDatabase.databaseUrl ? await openDatabase({ databaseUrl: testDatabase.databaseUrl }) : testDatabase.database;
  const servers: RunningServer[] = [];
  const start = async (database: Database, name: string) => {
    const logger = createLogger({ level: 'debug', sink: (line) => logs.push(`${name} ${line}`) });
    const ownEnv = name === 'B' && options.secondEnv ? { ...env, ...options.secondEnv } : env;
    const server = await startServer({ config: loadConfig(ownEnv), logger, database, env: ownEnv });
    servers.push(server);
    return server;
  };
  try {
    const [first, second] = [await start(testDatabase.database, 'A'), await start(secondDatabase, 'B')];
    const account = await initAccount(testDatabase.database, { name: 'pair' });
    const member = (server: RunningServer): PairMember => ({ ...account, origin: server.origin, baseUrl: `${server.origin}/api/v1` });
    return {
      first: member(first),
      second: member(second),
      driver,
      logs,
      async close() {
        for (const server of servers) await server.close();
        if (secondDatabase !== testDatabase.database) await secondDatabase.close();
        await testDatabase.drop();
        rmSync(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    for (const server of servers) await server.close();
    if (secondDatabase !== testDatabase.database) await secondDatabase.close();
    await testDatabase.drop();
    throw error;
  }
}
