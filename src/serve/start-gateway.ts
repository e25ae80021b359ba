/**
 * What `switchboard serve` starts, for the command and for the bench alike: one gateway in this process, or
 * with `SWITCHBOARD_WORKERS` above 1 a cluster primary and its workers. Either way each serving process
 * gives its free heap back once it listens and whenever it goes idle (compact-heap.ts). The gateway itself is loaded only where it serves, so
 * a cluster primary stays a small process.
 */
// First: it must run before a full garbage collection frees nextTick's maps (see the module).
import '#src/serve/tick-object-maps.ts';
import cluster from 'node:cluster';
import type { Config } from '#src/config.ts';
import type { Logger } from '#src/logger.ts';
import { compactHeapWhenIdle } from '#src/serve/compact-heap.ts';
import { serveAsWorker, startCluster } from '#src/serve/cluster.ts';
import { answerPrimaryMetricsRequests } from '#src/observability/cluster-metrics.ts';

/** A serving gateway, seen from the process that started it. */
export interface ServingGateway {
  origin: string;
  /** The pids of the processes serving requests (this one, or the workers). */
  pids(): number[];
  /** Stops gracefully: requests in flight get `SWITCHBOARD_SHUTDOWN_GRACE_MS` (src/lifecycle/). */
  close(): Promise<void>;
  /** A second signal: the requests in flight end now. */
  hurry(): void;
}

/** What starting a gateway needs. */
export interface StartGatewayOptions {
  config: Config;
  logger: Logger;
  env: NodeJS.ProcessEnv;
}

async function startInProcess(options: StartGatewayOptions & { clusterWorker?: boolean }): Promise<{ origin: string; close(): Promise<void>; hurry(): void }> {
  const { startServer } = await import('#src/server.ts');
  const server = await startServer(options);
  const stopCompacting = compactHeapWhenIdle();
  return {
    origin: server.origin,
    close: async () => {
      stopCompacting();
      await server.close();
    },
    hurry: () => server.hurry(),
  };
}

/** Starts the gateway as configured and resolves once it serves. */
export async function startGateway(options: StartGatewayOptions): Promise<ServingGateway> {
  const { config, logger } = options;
  // A worker gets the grace period, then its last records and settlements are written: give that time too.
  if (config.workers > 1) {
    const metricsPort = config.observability.metricsPort;
    return startCluster({ count: config.workers, logger, graceMs: config.shutdownGraceMs + 10_000, ...(metricsPort !== undefined ? { metricsListener: { port: metricsPort, host: config.host } } : {}) });
  }
  const server = await startInProcess(options);
  return { origin: server.origin, pids: () => [process.pid], close: () => server.close(), hurry: () => server.hurry() };
}

/** True in a process the cluster primary forked. */
export function isClusterWorker(): boolean {
  return cluster.isWorker;
}

/** In a forked worker: serves until the primary asks it to stop, then exits. */
export async function runClusterWorker(options: StartGatewayOptions): Promise<void> {
  // Before the gateway loads: the primary's scrapes must not wait for this worker until it serves.
  await answerPrimaryMetricsRequests();
  const server = await startInProcess({ ...options, config: { ...options.config, workers: 1 }, clusterWorker: true });
  serveAsWorker(server.origin, () => server.close(), () => server.hurry());
}
