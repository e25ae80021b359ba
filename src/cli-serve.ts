/**
 * `switchboard serve`: the hook from the command line to src/serve/start-gateway.ts. It makes sure the
 * process runs with the gateway's Node flags and environment (runtime-settings.ts), loads the configuration, starts the gateway
 * (one process, or a cluster primary with `SWITCHBOARD_WORKERS` above 1; in a forked worker, that worker's
 * gateway) and stops it cleanly on SIGINT or SIGTERM (releasing the PGlite data directory lock). A start
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
  if (isClusterWorker()) {
    try {
      await runClusterWorker({ config, logger, env: process.env });
    } catch (error) {
      console.error(`switchboard worker: ${(error as Error).message}`);
      return 1;
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
  logger.info('stopping', { signal });
  await gateway.close();
  return 0;
}
