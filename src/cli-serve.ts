/**
 * `switchboard serve`: the hook from the command line to src/serve/start-gateway.ts. It makes sure the
 * process runs with the gateway's Node flags and environment (runtime-settings.ts), loads the configuration, starts the gateway
 * (one process, or a cluster primary with `SWITCHBOARD_WORKERS` above 1; in a forked worker, that worker's
 * gateway) and on SIGINT or SIGTERM shuts it down gracefully (src/lifecycle/graceful-shutdown.ts: requests in
 * flight finish within `SWITCHBOARD_SHUTDOWN_GRACE_MS`, records are written, the PGlite data directory lock is
 * released), then exits 0; a second signal ends the grace period at once. SIGHUP (a reload) is logged and
 * otherwise ignored: the configuration is read only at start. A start
 * failure (data directory in use, missing master key, workers without PostgreSQL) is printed without a stack
 * trace, since it is meant for the operator.
 */
import { loadConfig } from '#src/config.ts';
import { createLogger } from '#src/logger.ts';
import { ensureRuntimeSettings } from '#src/serve/runtime-settings.ts';
import { isClusterWorker, runClusterWorker, startGateway, type ServingGateway } from '#src/serve/start-gateway.ts';

/** Starts the gateway and resolves with the exit code once it has stopped. */
export async function runServeCommand(args: string[]): Promise<number> {
  if (args.length > 0) {
    console.error(`switchboard serve takes no arguments (configure it with environment variables), got ${args.join(' ')}`);
    return 2;
  }
  ensureRuntimeSettings();
  const config = loadConfig(process.env);
  const logger = createLogger({ level: config.logLevel });
  // Node's default for SIGHUP ends the process at once, without the graceful shutdown. It is what
  // `systemctl reload` sends; the configuration is read only at start, so nothing is reloaded and serving goes on.
  process.on('SIGHUP', () => logger.warn('SIGHUP: nothing is reloaded; the environment and SWITCHBOARD_CONFIG are read only at start, restart to apply changes'));
  if (isClusterWorker()) {
    try {
      await runClusterWorker({ config, logger, env: process.env });
    } catch (error) {
      console.error(`switchboard worker: ${(error as Error).message}`);
      // Exit now: the IPC channel to the primary would keep this process alive with nothing serving, and the
      // primary learns that the start failed from the exit alone, then stops and prints why.
      process.exit(1);
    }
    // The worker serves until its primary stops it (it exits then).
    return new Promise<number>(() => undefined);
  }
  let gateway: ServingGateway;
  try {
    gateway = await startGateway({ config, logger, env: process.env });
  } catch (error) {
    console.error(`switchboard: ${(error as Error).message}`);
    return 1;
  }
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  logger.info('stopping', { signal, grace_ms: config.shutdownGraceMs });
  const hurry = (again: NodeJS.Signals) => {
    logger.warn('second signal: ending the requests in flight now', { signal: again });
    gateway.hurry();
  };
  process.once('SIGINT', hurry);
  process.once('SIGTERM', hurry);
  await gateway.close();
  // Everything is closed; a handle some library left open must not keep the process from exiting 0.
  setTimeout(() => process.exit(0), 1_000).unref();
  return 0;
}
