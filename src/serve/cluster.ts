/**
 * `SWITCHBOARD_WORKERS=N` with N above 1: a primary process forks N workers (node:cluster), each a whole
 * gateway (`switchboard serve` in worker mode) on the one shared port; the primary hands out connections
 * round-robin and does nothing else (it never loads the gateway). Workers share state the way separate
 * instances do: PostgreSQL for data and its change feed for caches, Redis (REDIS_URL) for sticky pins and
 * endpoint statistics. A worker that dies is replaced. The primary also collects the workers' metrics into
 * one scrape (src/observability/cluster-metrics.ts) and serves the metrics listener, when configured.
 */
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import type { Logger } from '#src/logger.ts';
import { aggregateWorkerMetrics } from '#src/observability/cluster-metrics.ts';
import { startMetricsServer } from '#src/observability/metrics-server.ts';

/** What a worker tells its primary. */
type WorkerMessage = { type: 'switchboard:ready'; origin: string };

/**
 * What the primary tells a worker: stop gracefully, or (a second signal to the primary) end the requests in
 * flight now. Two kinds, not one sent twice: with a signal to the whole process group (Ctrl-C, systemd's
 * default `KillMode=control-group`) a worker hears the primary's `shutdown` besides the signal itself, and
 * taking that as a second signal would end every stream at once.
 */
export type PrimaryMessage = { type: 'switchboard:shutdown' } | { type: 'switchboard:hurry' };

const CLI_PATH = fileURLToPath(new URL('../cli.ts', import.meta.url));
const RESTART_DELAY_MS = 1000;

function isReady(message: unknown): message is WorkerMessage {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'switchboard:ready';
}

/** A running cluster, seen from the primary. */
export interface RunningCluster {
  origin: string;
  /** The workers' process ids (tests, the bench). */
  pids(): number[];
  /** Stops every worker gracefully; a worker still running `graceMs` later is killed. */
  close(): Promise<void>;
  /** A second signal: every worker ends its requests in flight now. */
  hurry(): void;
}

function waitReady(worker: Worker): Promise<string> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      if (!isReady(message)) return;
      worker.off('exit', onExit);
      worker.off('message', onMessage);
      resolve(message.origin);
    };
    const onExit = (code: number | null, signal: string | null) => {
      worker.off('message', onMessage);
      reject(new Error(`a gateway worker exited (${signal ?? `code ${code}`}) before it served; its output above says why`));
    };
    worker.on('message', onMessage);
    worker.once('exit', onExit);
  });
}

function stopWorker(worker: Worker, graceMs: number): Promise<void> {
  if (worker.isDead()) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => worker.process.kill('SIGKILL'), graceMs);
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    sendQuietly(worker, { type: 'switchboard:shutdown' });
  });
}

/**
 * Sends a message to a worker that may be on its way out: a worker stopped by the same signal as the primary
 * (a signal to the process group) closes its channel before it is dead, and a send on a closed channel is an
 * `error` event that, unheard, would end the primary with exit code 1. Such a worker needs no message.
 */
function sendQuietly(worker: Worker, message: PrimaryMessage): void {
  if (worker.isConnected()) worker.send(message, () => undefined);
}

/** Forks `count` workers running `switchboard serve` and resolves once every one of them serves. */
export async function startCluster(options: { count: number; logger: Logger; graceMs: number; metricsListener?: { port: number; host: string } }): Promise<RunningCluster> {
  const { count, logger, graceMs } = options;
  // Listening before the workers start: a port in use stops the start before anything is forked.
  const scrape = aggregateWorkerMetrics();
  const metricsServer = options.metricsListener ? await startMetricsServer({ ...options.metricsListener, scrape }) : undefined;
  if (metricsServer) logger.info('metrics listening', { origin: metricsServer.origin });
  cluster.setupPrimary({ exec: CLI_PATH, args: ['serve'] });
  const workers = new Set<Worker>();
  let closing = false;
  const fork = (): Worker => {
    const worker = cluster.fork();
    workers.add(worker);
    worker.once('exit', (code, signal) => {
      workers.delete(worker);
      if (closing || !ready) return;
      logger.error('a gateway worker died; starting another', { pid: worker.process.pid, code, signal });
      setTimeout(() => {
        if (!closing) fork();
      }, RESTART_DELAY_MS).unref();
    });
    return worker;
  };
  let ready = false;
  const first = Array.from({ length: count }, () => fork());
  let origin: string;
  try {
    [origin = ''] = await Promise.all(first.map(waitReady));
  } catch (error) {
    closing = true;
    await Promise.all([...workers].map((worker) => stopWorker(worker, 5000)));
    await metricsServer?.close();
    throw error;
  }
  ready = true;
  logger.info('switchboard workers serving', { origin, workers: count });
  return {
    origin,
    pids: () => [...workers].map((worker) => worker.process.pid ?? -1),
    async close() {
      closing = true;
      await Promise.all([...workers].map((worker) => stopWorker(worker, graceMs)));
      await metricsServer?.close();
    },
    hurry() {
      for (const worker of workers) sendQuietly(worker, { type: 'switchboard:hurry' });
    },
  };
}

/**
 * In a worker: tells the primary it serves at `origin`, and calls `shutdown` when the primary asks or a signal
 * comes; the primary's `hurry`, or a second signal to the worker itself, calls `hurry` (the requests in flight
 * end now). The primary's `shutdown` never hurries: a signal to the process group brings it as well as the
 * signal, and the two are one request to stop.
 */
export function serveAsWorker(origin: string, shutdown: () => Promise<void>, hurry: () => void): void {
  process.send?.({ type: 'switchboard:ready', origin } satisfies WorkerMessage);
  let stopping = false;
  let signals = 0;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void shutdown().finally(() => process.exit(0));
  };
  const onSignal = () => {
    signals += 1;
    if (signals > 1) hurry();
    else stop();
  };
  process.on('message', (message: unknown) => {
    const type = (message as PrimaryMessage | undefined)?.type;
    if (type === 'switchboard:shutdown') stop();
    else if (type === 'switchboard:hurry') {
      stop();
      hurry();
    }
  });
  // The primary is gone (killed): stop rather than serve on unsupervised.
  process.on('disconnect', stop);
  // Ctrl-C reaches the whole process group; a signal to the primary alone arrives as the messages above.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
