/**
 * Child process: the real gateway as production runs it, configured by the environment bench/gateway-setup.ts
 * prepared (request validation on, response validation off, logging at `warn`), started by the same function
 * as `switchboard serve` and with the same Node flags (the parent passes them), so with `SWITCHBOARD_WORKERS`
 * above 1 it is the cluster primary. It does nothing else, so its memory is the gateway's own: the parent
 * stores the BYOK credential and checks it over HTTP.
 */
import { loadConfig } from '#src/config.ts';
import { createLogger } from '#src/logger.ts';
import { startGateway } from '#src/serve/start-gateway.ts';
import { failStart, serveParent } from './child-process.ts';

/** What the gateway child reports to the parent once it serves. */
export interface GatewayReady {
  origin: string;
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const gateway = await startGateway({ config, logger: createLogger({ level: config.logLevel }), env: process.env });
  serveParent({ origin: gateway.origin } satisfies GatewayReady, () => gateway.close());
}

main().catch(failStart);
