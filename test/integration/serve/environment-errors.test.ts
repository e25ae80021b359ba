/**
 * `switchboard serve` started, as an operator starts it, with a bad value in one environment variable: it stops
 * (exit 1) with a message that names the variable and says what is wrong, and never prints a secret value (a
 * connection URL's password, the master key, the bootstrap management key). A number that is not secret may be
 * quoted. Nothing listens on 127.0.0.1:9 (the discard port), so a connection there is refused at once.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = new URL('../../../src/cli.ts', import.meta.url).pathname;
/** Far more than a failed start takes; a start that hangs is killed here and reported. */
const GIVE_UP_MS = 60_000;
const MASTER_KEY = 'zZ8xQm3r5kq7b1vY2n0cL4sW6tH9uJ3eA5dF7gK1pR8=';
const SECRET = 'Pw7Secr3tValueQ9';

let directory: string;
let runs = 0;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'switchboard-environment-errors-'));
});
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** The exit code and output of `switchboard serve` with `env`, or `hung` when it still ran after `GIVE_UP_MS`. */
function serveUntilExit(env: Record<string, string>): Promise<{ code: number | null | 'hung'; output: string }> {
  runs += 1;
  const base = { PATH: process.env.PATH ?? '', HOME: directory, HOST: '127.0.0.1', PORT: '0', SWITCHBOARD_DATA_DIR: join(directory, `data-${runs}`), SWITCHBOARD_MASTER_KEY: MASTER_KEY };
  const child = spawn(process.execPath, [CLI, 'serve'], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      process.kill(-(child.pid as number), 'SIGKILL');
      resolve({ code: 'hung', output });
    }, GIVE_UP_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('switchboard serve with a bad environment value', () => {
  it.each<[string, Record<string, string>, RegExp]>([
    ['DATABASE_URL refused', { DATABASE_URL: `postgres://gateway:${SECRET}@127.0.0.1:9/switchboard` }, /DATABASE_URL \(postgres:\/\/gateway:\*\*\*@127\.0\.0\.1:9\/switchboard\): PostgreSQL could not be opened: connect ECONNREFUSED 127\.0\.0\.1:9/],
    ['DATABASE_URL not a URL', { DATABASE_URL: `postgres://gateway:${SECRET}@127.0.0.1:port/switchboard` }, /DATABASE_URL is not a valid URL: expected postgres:\/\/<user>:<password>@<host>:<port>\/<database>/],
    ['DATABASE_URL of another scheme', { DATABASE_URL: `mysql://gateway:${SECRET}@127.0.0.1:9/switchboard` }, /DATABASE_URL must be a PostgreSQL connection URL, .* but its scheme is mysql:\/\//],
    ['REDIS_URL not a URL', { REDIS_URL: `redis://:${SECRET}@127.0.0.1:port` }, /REDIS_URL is not a valid URL: expected redis:\/\//],
    ['REDIS_URL of another scheme', { REDIS_URL: `http://:${SECRET}@127.0.0.1:9` }, /REDIS_URL must be a Redis URL, .* but its scheme is http:\/\//],
    ['SWITCHBOARD_MASTER_KEY', { SWITCHBOARD_MASTER_KEY: SECRET }, /SWITCHBOARD_MASTER_KEY must be 32 random bytes/],
    ['SWITCHBOARD_BOOTSTRAP_MANAGEMENT_KEY', { SWITCHBOARD_BOOTSTRAP_MANAGEMENT_KEY: `sb-${SECRET}` }, /SWITCHBOARD_BOOTSTRAP_MANAGEMENT_KEY must be at least 32 characters long/],
  ])(
    'stops naming %s, without the secret',
    async (_name, env, message) => {
      const { code, output } = await serveUntilExit(env);
      expect(code, output).toBe(1);
      expect(output).toMatch(message);
      expect(output).not.toContain(SECRET);
      expect(output).not.toMatch(/\n\s+at /);
    },
    GIVE_UP_MS + 10_000,
  );

  it('quotes a number that is not secret', async () => {
    const { code, output } = await serveUntilExit({ SWITCHBOARD_REQUEST_TIMEOUT_MS: '10s' });
    expect(code).toBe(1);
    expect(output).toContain('SWITCHBOARD_REQUEST_TIMEOUT_MS must be a positive integer, got "10s"');
  });
});
