/**
 * A Redis server of the test's own (`redis-server` on a free port, nothing saved to disk), so a test can kill
 * it mid-traffic and start it again on the same port without touching the shared one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A Redis server the test owns. */
export interface OwnRedis {
  port: number;
  url: string;
  /** Kills the server (SIGKILL: no shutdown courtesy), resolving once it is gone. */
  kill(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, commands go unanswered, as a hung server's. */
  pause(): void;
  /** Lets a paused server go on (SIGCONT). */
  resume(): void;
  /** Starts it again on the same port (empty: nothing was saved), resolving once it accepts connections. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function launch(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start on ${port}:\n${output}`)), 10_000);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`redis-server could not be started (is it installed?): ${error.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
}

function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Starts a Redis server on a free port. */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined = await launch(port);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async kill() {
      if (child) await killed(child);
      child = undefined;
    },
    pause() {
      child?.kill('SIGSTOP');
    },
    resume() {
      child?.kill('SIGCONT');
    },
    async restart() {
      child = await launch(port);
    },
    async stop() {
      child?.kill('SIGCONT');
      if (child) await killed(child);
      child = undefined;
    },
  };
}
