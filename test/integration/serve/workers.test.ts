/**
 * `SWITCHBOARD_WORKERS=2` with real processes: `switchboard serve` started as an operator starts it, a
 * cluster primary and two workers on one port, on PostgreSQL and Redis. A session pinned by the worker that
 * served its first request is served by the same provider when the other worker takes the next request (which
 * worker accepted each connection is read from /proc). Alpha is 50,000 times cheaper than Beta, so without
 * the pin the other worker would choose Alpha. Also: more than one worker on PGlite is refused at start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { initAccount, type InitializedAccount } from '#src/keys/accounts.ts';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { openTestDatabase, type TestDatabase } from '#test/helpers/test-database.ts';
import { childProcesses, connectionOwner } from '#test/helpers/connection-owner.ts';
import { anthropicProviderYaml, catalogYaml, messageBody, modelYaml, resetFakes, WITH_METADATA } from '#test/integration/routing/routing-support.ts';

const CLI = new URL('../../../src/cli.ts', import.meta.url).pathname;
const MASTER_KEY = 'zZ8xQm3r5kq7b1vY2n0cL4sW6tH9uJ3eA5dF7gK1pR8=';

/** Runs `switchboard serve` and resolves once the primary logs that its workers serve. */
function serve(env: NodeJS.ProcessEnv): Promise<{ process: ChildProcess; origin: string; output: string[] }> {
  const child = spawn(process.execPath, [CLI, 'serve'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const onLine = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        output.push(line);
        const origin = line.includes('switchboard workers serving') ? (JSON.parse(line) as { origin?: string }).origin : undefined;
        if (origin) resolve({ process: child, origin, output });
      }
    };
    child.stdout?.on('data', onLine);
    child.stderr?.on('data', onLine);
    child.once('exit', (code) => reject(new Error(`switchboard serve exited with ${code} before serving:\n${output.join('\n')}`)));
  });
}

/** The exit code and output of a `switchboard serve` that is expected to stop by itself. */
function serveUntilExit(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [CLI, 'serve'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

it.each([
  ['more than one worker on the embedded database, saying what to do', { SWITCHBOARD_WORKERS: '2' }, 'SWITCHBOARD_WORKERS=2 needs PostgreSQL (DATABASE_URL)'],
  ['a request time budget of 0, which would outlive the limit holds sized from it', { SWITCHBOARD_REQUEST_TIMEOUT_MS: '0' }, 'SWITCHBOARD_REQUEST_TIMEOUT_MS must be a positive integer, got "0"'],
  ['a PORT past 65535, naming the variable', { PORT: '70000' }, 'PORT must be a port number from 0 to 65535, got "70000"'],
  ['a log level in capitals, saying what it got', { SWITCHBOARD_LOG_LEVEL: 'INFO' }, 'SWITCHBOARD_LOG_LEVEL must be one of debug, info, warn, error, got "INFO"'],
  ['a SWITCHBOARD_METRICS_PORT past 65535, naming the variable', { SWITCHBOARD_METRICS_PORT: '80800' }, 'SWITCHBOARD_METRICS_PORT must be a port number from 0 to 65535, got "80800"'],
])('refuses %s', async (_label, env, message) => {
  const directory = mkdtempSync(join(tmpdir(), 'switchboard-refused-'));
  try {
    const { code, output } = await serveUntilExit({ DATABASE_URL: '', PORT: '0', SWITCHBOARD_DATA_DIR: join(directory, 'data'), ...env });
    expect(code).toBe(1);
    expect(output).toContain(message);
    expect(output).not.toMatch(/\n\s+at /);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

const REDIS_URL = process.env.REDIS_URL;
const DATABASE_URL = process.env.DATABASE_URL;

// Runs whenever PostgreSQL and Redis are configured; in CI (CI=true) a missing one fails here instead.
describe.skipIf((!REDIS_URL || !DATABASE_URL) && process.env.CI !== 'true')('two workers sharing sticky sessions through Redis', () => {
  let alpha: FakeUpstream;
  let beta: FakeUpstream;
  let database: TestDatabase;
  let account: InitializedAccount;
  let gateway: Awaited<ReturnType<typeof serve>>;
  let directory: string;
  let port: number;

  beforeAll(async () => {
    if (!REDIS_URL || !DATABASE_URL) throw new Error('CI=true but REDIS_URL or DATABASE_URL is not set: the workers test must run in CI');
    [alpha, beta] = await Promise.all([startFakeAnthropic(), startFakeAnthropic()]);
    database = await openTestDatabase('postgres');
    account = await initAccount(database.database, { name: 'workers' });
    directory = mkdtempSync(join(tmpdir(), 'switchboard-workers-'));
    const catalogFile = join(directory, 'switchboard.yaml');
    const models = [
      modelYaml('test/sticky', [
        { provider: 'alpha', model: 'up-sticky-alpha', price: [0.001, 0.001] },
        { provider: 'beta', model: 'up-sticky-beta', price: [50, 50] },
      ]),
    ];
    writeFileSync(catalogFile, catalogYaml([anthropicProviderYaml('alpha', alpha), anthropicProviderYaml('beta', beta)], models));
    gateway = await serve({
      SWITCHBOARD_WORKERS: '2',
      PORT: '0',
      DATABASE_URL: database.databaseUrl,
      REDIS_URL,
      SWITCHBOARD_CONFIG: catalogFile,
      SWITCHBOARD_MASTER_KEY: MASTER_KEY,
      SWITCHBOARD_LOG_LEVEL: 'info',
    });
    port = Number(new URL(gateway.origin).port);
  });
  afterAll(async () => {
    if (gateway && gateway.process.exitCode === null) {
      const exited = new Promise((resolve) => gateway.process.once('exit', resolve));
      gateway.process.kill('SIGTERM');
      await exited;
    }
    await Promise.all([alpha?.close(), beta?.close(), database?.drop()]);
    if (directory) rmSync(directory, { recursive: true, force: true });
  });
  beforeEach(() => resetFakes(alpha, beta));

  /** One request on a connection of its own; returns who served it and which worker accepted the connection. */
  async function send(session: string): Promise<{ status: number; provider: unknown; strategy: unknown; worker: number | undefined }> {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const body = JSON.stringify(messageBody('test/sticky', { session_id: session }));
      const headers = { authorization: `Bearer ${account.api_key}`, 'content-type': 'application/json', ...WITH_METADATA };
      const { status, text, clientPort } = await new Promise<{ status: number; text: string; clientPort: number }>((resolve, reject) => {
        const outgoing = request(`${gateway.origin}/api/v1/messages`, { method: 'POST', agent, headers }, (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text, clientPort: outgoing.socket?.localPort ?? 0 }));
        });
        outgoing.on('error', reject);
        outgoing.end(body);
      });
      // The kept-alive connection is still open: its server end belongs to the worker that served it.
      const worker = connectionOwner({ serverPort: port, clientPort, candidates: childProcesses(gateway.process.pid ?? -1) });
      const parsed = JSON.parse(text) as { provider?: unknown; gateway_metadata?: { strategy?: unknown } };
      return { status, provider: parsed.provider, strategy: parsed.gateway_metadata?.strategy, worker };
    } finally {
      agent.destroy();
    }
  }

  it('runs a primary and two workers, all with the gateway flags and environment', () => {
    const workers = childProcesses(gateway.process.pid ?? -1);
    expect(workers).toHaveLength(2);
    for (const pid of [gateway.process.pid ?? -1, ...workers]) {
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining(['--liftoff-only', '--max-semi-space-size=16']));
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain('MALLOC_ARENA_MAX=2');
    }
  });

  /**
   * Sends requests until every worker that gave Redis up for a moment has it back. A worker whose event loop
   * was held up at start (loading modules on a busy machine) sees its Redis commands time out and works in
   * process for a second; a pin it wrote then would stay its own, and the test would see routing, not Redis.
   */
  async function untilRedisShared(): Promise<void> {
    const count = (text: string) => gateway.output.filter((line) => line.includes(text)).length;
    const deadline = Date.now() + 15_000;
    for (let round = 0; round < 2 || count('redis is unreachable') > count('redis is back'); round += 1) {
      if (Date.now() > deadline) throw new Error(`a worker did not get Redis back:\n${gateway.output.slice(-40).join('\n')}`);
      alpha.enqueue(reply.fixture('anthropic-text'));
      expect((await send(randomUUID())).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    resetFakes(alpha, beta);
  }

  it('a session pinned by one worker is served by the same provider on the other worker', async () => {
    await untilRedisShared();
    const session = randomUUID();
    alpha.enqueue(reply.error(529));
    beta.enqueue(reply.fixture('anthropic-text'));
    const pinned = await send(session);
    expect(pinned).toMatchObject({ status: 200, provider: 'Beta Cloud', strategy: 'price-weighted' });
    expect(pinned.worker).toBeDefined();
    resetFakes(alpha, beta);

    // Connections go to the workers in turn: within a few, one lands on the other worker.
    const served: Awaited<ReturnType<typeof send>>[] = [];
    for (let attempt = 0; attempt < 8 && !served.some((call) => call.worker !== pinned.worker); attempt += 1) {
      beta.enqueue(reply.fixture('anthropic-text'));
      served.push(await send(session));
    }
    const onOtherWorker = served.find((call) => call.worker !== pinned.worker);
    expect(onOtherWorker, JSON.stringify(served)).toBeDefined();
    expect(onOtherWorker?.worker).toBeDefined();
    // On failure, the workers' log says whether Redis was given up on (a timed-out command falls back to the process).
    for (const call of served) expect(call, gateway.output.slice(-40).join('\n')).toMatchObject({ status: 200, provider: 'Beta Cloud', strategy: 'sticky' });
    expect(alpha.requests).toHaveLength(0);
  });

  it('without the pin, either worker chooses the cheaper provider (control)', async () => {
    const workers = new Set<number | undefined>();
    for (let attempt = 0; attempt < 4; attempt += 1) {
      alpha.enqueue(reply.fixture('anthropic-text'));
      const call = await send(randomUUID());
      expect(call).toMatchObject({ status: 200, provider: 'Alpha Cloud', strategy: 'price-weighted' });
      workers.add(call.worker);
    }
    expect(workers.size).toBe(2);
  });

  it('stops the primary and both workers on SIGTERM', async () => {
    const workers = childProcesses(gateway.process.pid ?? -1);
    const exited = new Promise<number | null>((resolve) => gateway.process.once('exit', resolve));
    gateway.process.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(workers).toHaveLength(2);
    await expect.poll(() => workers.filter(existsProcess), { timeout: 10_000 }).toEqual([]);
  });
});

function existsProcess(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
