/**
 * Prepares what a bench gateway starts from, the way the README starts one: a catalog file pointing
 * `anthropic` at the bench upstream, a master key, and an account created by `switchboard init` in its own
 * process before the gateway starts (on PGlite that process also creates the data directory, so the gateway
 * opens an existing one, as `npm start` after `init` does). On PostgreSQL a fresh database is created from
 * DATABASE_URL for the run and dropped afterwards.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { BENCH_MODEL, BENCH_PACED_MODEL, BENCH_SLOW_MODEL, PACED_MODEL, SLOW_MODEL } from './bench-models.ts';

/** Which database a bench gateway runs on. */
export type BenchDatabase = 'pglite' | 'postgres';

/** A prepared gateway: its environment, the account's keys, and how to clean up after it. */
export interface GatewaySetup {
  database: BenchDatabase;
  /** The gateway's environment (the variables the README documents). */
  env: Record<string, string>;
  managementKey: string;
  apiKey: string;
  dispose(): Promise<void>;
}

const CLI = new URL('../src/cli.ts', import.meta.url);

function catalogYaml(upstreamOrigin: string): string {
  const pricing = '{ input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 }';
  return [
    'providers:',
    `  anthropic: { base_url: "${upstreamOrigin}", api_key: "sk-ant-bench-shared-key-0000000001" }`,
    'models:',
    `  ${BENCH_MODEL}:`,
    '    endpoints:',
    // `retires_at: null`: the built-in Anthropic endpoint of Sonnet 4.5 retires on 2026-11-30, after which the
    // gateway would no longer route the bench's requests to it; runs before and after must measure the same path.
    `      - { provider: anthropic, model: claude-sonnet-4-5, pricing: ${pricing}, retires_at: null }`,
    `  ${BENCH_SLOW_MODEL}:`,
    '    endpoints:',
    `      - { provider: anthropic, model: ${SLOW_MODEL}, pricing: ${pricing} }`,
    `  ${BENCH_PACED_MODEL}:`,
    '    endpoints:',
    `      - { provider: anthropic, model: ${PACED_MODEL}, pricing: ${pricing} }`,
    '',
  ].join('\n');
}

async function createPostgresDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `switchboard_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Creates the catalog, the database and the account of one bench gateway. */
export async function prepareGateway(options: { upstreamOrigin: string; database: BenchDatabase; extraEnv?: Record<string, string> }): Promise<GatewaySetup> {
  const directory = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  const catalogPath = join(directory, 'switchboard.yaml');
  writeFileSync(catalogPath, catalogYaml(options.upstreamOrigin));
  let postgres: Awaited<ReturnType<typeof createPostgresDatabase>> | undefined;
  if (options.database === 'postgres') {
    const adminUrl = process.env.DATABASE_URL;
    if (!adminUrl) throw new Error('--database postgres needs DATABASE_URL (a PostgreSQL server the bench may create a database on)');
    postgres = await createPostgresDatabase(adminUrl);
  }
  const storage: Record<string, string> = postgres ? { DATABASE_URL: postgres.url } : { SWITCHBOARD_DATA_DIR: join(directory, 'data') };
  const dispose = async (): Promise<void> => {
    await postgres?.drop();
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [CLI.pathname, 'init', '--name', 'bench', '--json'], {
      env: { ...process.env, DATABASE_URL: '', ...storage },
    });
    const account = JSON.parse(stdout) as { management_key: string; api_key: string };
    return {
      database: options.database,
      env: {
        HOST: '127.0.0.1',
        PORT: '0',
        ...storage,
        SWITCHBOARD_CONFIG: catalogPath,
        SWITCHBOARD_MASTER_KEY: randomBytes(32).toString('base64'),
        SWITCHBOARD_LOG_LEVEL: 'warn',
        SWITCHBOARD_VALIDATE_RESPONSES: 'false',
        ...options.extraEnv,
      },
      managementKey: account.management_key,
      apiKey: account.api_key,
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}
