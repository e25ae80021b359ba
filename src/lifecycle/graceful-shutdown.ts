/**
 * The shutdown sequence of one gateway instance (SIGTERM or SIGINT, or `close()` in tests):
 * 1. drain: the listening socket closes (new connections are refused), `GET /health` answers 503 `draining`
 *    on the connections still open, other new requests there answer 503, idle keep-alive connections close;
 * 2. the requests in flight, JSON and streams, finish on their own for up to the grace period;
 * 3. at the deadline, streams still open end with an in-band `overloaded_error` event and every other request
 *    is aborted (its upstream call stops; a JSON request answers 503);
 * 4. then the services close in order: the outcomes of every request are recorded and the generation
 *    records, key spending and limit settlements written, connections to Redis and the database closed.
 */
import type { Server } from 'node:http';
import type { Logger } from '#src/logger.ts';
import type { DrainTracker } from '#src/lifecycle/drain-tracker.ts';

// After the deadline, how long the ended requests get to close their responses before connections are cut.
const AFTER_DEADLINE_MS = 5_000;
// How often connections that became idle while draining are closed.
const IDLE_SWEEP_MS = 100;

/** What a shutdown works on. */
export interface ShutdownTarget {
  server: Server;
  tracker: DrainTracker;
  graceMs: number;
  logger: Logger;
  /** Closes the services once no request is in flight (records, spending, Redis, database). */
  closeServices(): Promise<void>;
}

/** Runs the sequence; resolves once everything is closed. */
export async function shutDownGracefully(target: ShutdownTarget): Promise<void> {
  const { server, tracker, logger } = target;
  tracker.beginDrain();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  sweep.unref();
  if (tracker.inFlight > 0) logger.info('draining: waiting for the requests in flight', { in_flight: tracker.inFlight, grace_ms: target.graceMs });
  const idle = await tracker.whenIdle(target.graceMs);
  if (!idle) {
    logger.warn('shutdown grace period over: ending the requests still in flight', { in_flight: tracker.inFlight });
    tracker.passDeadline();
    await tracker.whenIdle(AFTER_DEADLINE_MS);
  }
  clearInterval(sweep);
  server.closeAllConnections();
  await closed;
  await target.closeServices();
  logger.info('stopped');
}
