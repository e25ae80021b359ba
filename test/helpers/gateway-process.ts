/**
 * The gateway as a real process (`node src/cli.ts serve`), as an operator runs it: configured by environment
 * variables, logging JSON lines on stderr, stopped by a signal. Tests that need separate instances, signals or
 * exit codes use it; the account is seeded with `SWITCHBOARD_BOOTSTRAP_MANAGEMENT_KEY` and inference keys are
 * issued over HTTP, as a deployment would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { callApi } from '#test/helpers/management-api.ts';
import { openTestDatabase, type TestDatabase } from '#test/helpers/test-database.ts';
import { TEST_GATEWAY_ENV } from '#test/helpers/test-gateway-env.ts';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

/** The master key of every gateway process in the tests. */
export const PROCESS_MASTER_KEY = 'zZ8xQm3r5kq7b1vY2n0cL4sW6tH9uJ3eA5dF7gK1pR8=';

/** A management key for `SWITCHBOARD_BOOTSTRAP_MANAGEMENT_KEY`. */
export function bootstrapKey(): string {
  return `sb-${randomBytes(32).toString('base64url')}`;
}

/** A running gateway process. */
export interface GatewayProcess {
  origin: string;
  baseUrl: string;
  management_key: string;
  child: ChildProcess;
  /** Every stderr line so far (JSON log lines). */
  logs: string[];
  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  exited: Promise<number | null>;
  /** Sends `signal` and waits for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /**
   * Sends `signal` to the gateway's whole process group (the primary and its workers), as Ctrl-C in a terminal
   * or systemd's default `KillMode=control-group` do; needs `processGroup` at start.
   */
  signalGroup(signal: NodeJS.Signals): void;
}

/** Where a gateway process keeps its data: a fresh PostgreSQL database, or a PGlite directory cloned from the template. */
export interface ProcessStore {
  env: Record<string, string>;
  testDatabase: TestDatabase | undefined;
  drop(): Promise<void>;
}

/** A store for gateway processes: PostgreSQL when `driver` says so, else a PGlite data directory (closed, for the process to lock). */
export async function processStore(driver: 'pglite' | 'postgres'): Promise<ProcessStore> {
  const testDatabase = await openTestDatabase(driver);
  if (driver === 'postgres') {
    return { env: { DATABASE_URL: testDatabase.databaseUrl as string }, testDatabase, drop: () => testDatabase.drop() };
  }
  await testDatabase.database.close();
  const dataDir = testDatabase.dataDir as string;
  return { env: { SWITCHBOARD_DATA_DIR: dataDir }, testDatabase: undefined, drop: async () => rmSync(dataDir, { recursive: true, force: true }) };
}

/** Starts `switchboard serve` with `env` (PORT 0) and the catalog file; resolves once it (every worker) listens. */
export async function startGatewayProcess(options: { env: Record<string, string>; catalogYaml?: string; managementKey?: string; processGroup?: boolean }): Promise<GatewayProcess> {
  const directory = mkdtempSync(join(tmpdir(), 'switchboard-process-'));
  const managementKey = options.managementKey ?? bootstrapKey();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: directory,
    HOST: '127.0.0.1',
    ...TEST_GATEWAY_ENV,
    SWITCHBOARD_MASTER_KEY: PROCESS_MASTER_KEY,
    SWITCHBOARD_BOOTSTRAP_MANAGEMENT_KEY: managementKey,
    SWITCHBOARD_LOG_LEVEL: 'info',
    ...options.env,
  };
  if (options.catalogYaml !== undefined) {
    const file = join(directory, 'switchboard.yaml');
    writeFileSync(file, options.catalogYaml);
    env.SWITCHBOARD_CONFIG = file;
  }
  // With workers, the first worker's "listening" comes before the others serve: wait for the primary's word.
  const ready = Number(env.SWITCHBOARD_WORKERS ?? '1') > 1 ? '"switchboard workers serving"' : '"switchboard listening"';
  // `processGroup`: the gateway leads a process group of its own, which `signalGroup` signals as a whole.
  const child = spawn(process.execPath, [CLI, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'], detached: options.processGroup === true });
  const logs: string[] = [];
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      rmSync(directory, { recursive: true, force: true });
      resolve(code);
    });
  });
  const origin = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`the gateway did not start within 60 s:\n${logs.join('\n')}`)), 60_000);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        logs.push(line);
        if (!line.includes(ready)) continue;
        clearTimeout(timer);
        resolve((JSON.parse(line) as { origin: string }).origin);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the gateway exited with ${code} before listening:\n${logs.join('\n')}`));
    });
  });
  return {
    origin,
    baseUrl: `${origin}/api/v1`,
    management_key: managementKey,
    child,
    logs,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    signalGroup(signal) {
      if (options.processGroup !== true || child.pid === undefined) throw new Error('signalGroup needs a gateway started with processGroup');
      process.kill(-child.pid, signal);
    },
  };
}

/** Issues an inference key on a gateway (process or not) with the management key. */
export async function issueInferenceKey(gateway: { baseUrl: string; management_key: string }, body: Record<string, unknown> = {}): Promise<{ key: string; hash: string }> {
  const response = await callApi<{ data: { key: string; hash: string } }>(gateway.baseUrl, 'POST', '/keys', { key: gateway.management_key, body: { kind: 'inference', ...body } });
  if (response.status !== 201) throw new Error(`POST /keys answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body.data;
}

/** The Redis URL suites sharing state across instances use; in CI (CI=true) a missing REDIS_URL is an error, never a skip. */
export function redisUrlForTests(): string | undefined {
  const url = process.env.REDIS_URL;
  if (!url && process.env.CI === 'true') throw new Error('CI=true but REDIS_URL is not set: the Redis tests must run in CI');
  return url;
}
