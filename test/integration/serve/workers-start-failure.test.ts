/**
 * `SWITCHBOARD_WORKERS=2` whose workers cannot start: `switchboard serve` run as an operator runs it, with a
 * configuration file that has a mistake. Every worker fails loading it; the command must stop (exit 1) with
 * the file's precise message and no stack trace, as one process does, rather than run on with nothing serving.
 * The catalog is read before the database is opened, so no database is needed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const CLI = new URL('../../../src/cli.ts', import.meta.url).pathname;
/** Far more than a failed start takes; a start that hangs is killed here and reported. */
const GIVE_UP_MS = 25_000;

let directory: string;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'switchboard-workers-refused-'));
});
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** The exit code and output of `switchboard serve`, or `hung` when it was still running after `GIVE_UP_MS`. */
function serveUntilExit(env: NodeJS.ProcessEnv): Promise<{ code: number | null | 'hung'; output: string }> {
  // Its own process group, so that a hung primary and its workers are all killed.
  const child = spawn(process.execPath, [CLI, 'serve'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
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

it(
  'stops with the configuration file’s message when the workers cannot load it',
  async () => {
    const file = join(directory, 'switchboard.yaml');
    writeFileSync(file, 'providers:\n  anthropic: { base_ulr: http://127.0.0.1:9 }\n');
    const { code, output } = await serveUntilExit({
      SWITCHBOARD_WORKERS: '2',
      SWITCHBOARD_CONFIG: file,
      DATABASE_URL: process.env.DATABASE_URL || 'postgres://127.0.0.1:9/unused',
      REDIS_URL: '',
      PORT: '0',
      SWITCHBOARD_DATA_DIR: join(directory, 'data'),
    });
    expect(code).toBe(1);
    expect(output).toContain(`Invalid configuration file ${file}:\n  providers.anthropic.base_ulr: is not a known field`);
    expect(output).not.toMatch(/\n\s+at /);
  },
  GIVE_UP_MS + 10_000,
);
