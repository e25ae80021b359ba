/**
 * Starts the partners' mock (Prism over generated/openapi.mock.yaml) on 127.0.0.1, exactly as
 * `npm run mock` does, and waits until it answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A running mock. */
export interface RunningMock {
  baseUrl: string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Starts Prism and resolves once `/api/v1/health` answers. */
export async function startMock(): Promise<RunningMock> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['src/tools/mock.ts', '--port', String(port)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${port}/api/v1`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the mock exited early:\n${output}`);
    try {
      const response = await fetch(`${baseUrl}/health`);
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  if (Date.now() >= deadline) {
    child.kill('SIGKILL');
    throw new Error(`the mock did not start within 30 s:\n${output}`);
  }
  return {
    baseUrl,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
