/**
 * `switchboard serve` (the real command, as a child process) on a port another process holds: the start stops
 * (exit 1) with a message naming the variable that chose the port and what is wrong, for the API port
 * (`PORT`) and the metrics listener (`SWITCHBOARD_METRICS_PORT`), rather than Node's bare `listen EADDRINUSE`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const CLI = new URL('../../../src/cli.ts', import.meta.url).pathname;

let directory: string;
let holder: Server;
let heldPort: number;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'switchboard-listen-'));
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  heldPort = (holder.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => holder.close(resolve));
  rmSync(directory, { recursive: true, force: true });
});

function serveUntilExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', HOST: '127.0.0.1', PORT: '0', SWITCHBOARD_DATA_DIR: join(directory, 'data'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
}

it.each([
  ['PORT', (port: number) => `switchboard: cannot listen on 127.0.0.1:${port} (HOST, PORT): another process is listening on that port`],
  ['SWITCHBOARD_METRICS_PORT', (port: number) => `switchboard: cannot listen on 127.0.0.1:${port} (HOST, SWITCHBOARD_METRICS_PORT): another process is listening on that port`],
])('names %s when another process holds its port', async (variable, message) => {
  const { code, output } = await serveUntilExit({ [variable]: String(heldPort) });
  expect(code).toBe(1);
  expect(output).toContain(message(heldPort));
  expect(output).not.toMatch(/\n\s+at /);
  // The API port is bound after the embedded database is opened and migrated: seconds on a loaded machine.
}, 60_000);
