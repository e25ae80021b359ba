/**
 * `switchboard serve`: the hook from the command line to the gateway's own start function in src/server.ts.
 * It loads the configuration, starts the server, and on SIGINT or SIGTERM shuts it down gracefully (see
 * src/lifecycle/graceful-shutdown.ts: requests in flight finish within `SWITCHBOARD_SHUTDOWN_GRACE_MS`,
 * records are written, the PGlite data directory lock is released), then exits 0. A second signal ends the
 * grace period at once. A start failure (data directory in use, missing master key) is printed without a
 * stack trace, since it is meant for the operator.
 */
import { loadConfig } from '#src/config.ts';
import { createLogger } from '#src/logger.ts';

/** What this hook needs from src/server.ts. */
interface ServerModule {
  startServer(options: { config: ReturnType<typeof loadConfig>; logger: ReturnType<typeof createLogger>; env: NodeJS.ProcessEnv }): Promise<{
    origin: string;
    close(): Promise<void>;
    hurry(): void;
  }>;
}

// Resolved at run time so the command line does not load the whole gateway for `init` and `keys`.
const SERVER_MODULE = '#src/server.ts';

/** Starts the gateway and resolves with the exit code once it has stopped. */
export async function runServeCommand(args: string[]): Promise<number> {
  if (args.length > 0) {
    console.error(`switchboard serve takes no arguments (configure it with environment variables), got ${args.join(' ')}`);
    return 2;
  }
  const config = loadConfig(process.env);
  const logger = createLogger({ level: config.logLevel });
  const { startServer } = (await import(SERVER_MODULE)) as ServerModule;
  let server: Awaited<ReturnType<ServerModule['startServer']>>;
  try {
    server = await startServer({ config, logger, env: process.env });
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
    server.hurry();
  };
  process.once('SIGINT', hurry);
  process.once('SIGTERM', hurry);
  await server.close();
  // Everything is closed; a handle some library left open must not keep the process from exiting 0.
  setTimeout(() => process.exit(0), 1_000).unref();
  return 0;
}
