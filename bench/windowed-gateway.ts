/**
 * What the per-request gateway measurements share (bench/allocation-profile.ts, bench/promoted-bytes.ts): a
 * fake upstream and one gateway in their own processes, started as `npm run bench` starts them, then for each
 * mode a warm-up and a window of a fixed number of requests, with the measurement switched on and off in the
 * gateway process at the window's edges. Any error in a window fails the run: a figure per request means
 * nothing over requests that did not complete.
 */
import { runLoad, type LoadResult } from './load-generator.ts';
import { requestBody } from './measure.ts';
import { startGateway, startUpstream, type Target } from './targets.ts';
import type { BenchDatabase } from './gateway-setup.ts';

/** The command-line values both scripts read (`parseArgs` strings). */
export interface WindowSettings {
  database: string;
  'flush-ms': string;
  'gateway-flags'?: string | undefined;
  modes: string;
  connections: string;
  warmup: string;
  requests: string;
}

/** The `parseArgs` options behind WindowSettings, with a script's own window size and record flush interval. */
export function windowOptions(defaults: { requests: string; flushMs: string }) {
  return {
    requests: { type: 'string', default: defaults.requests },
    connections: { type: 'string', default: '64' },
    warmup: { type: 'string', default: '10' },
    database: { type: 'string', default: process.env.DATABASE_URL ? 'postgres' : 'pglite' },
    modes: { type: 'string', default: 'json,stream' },
    'flush-ms': { type: 'string', default: defaults.flushMs },
    'gateway-flags': { type: 'string' },
  } as const;
}

/** Where a window's measurement starts and stops (in the gateway's process, over IPC). */
export interface WindowHooks {
  onMeasureStart: () => Promise<void>;
  onMeasureEnd: () => Promise<void>;
}

/** One line for the output's heading: the database, the flags and the connections. */
export function describeGateway(settings: WindowSettings): string {
  const flags = settings['gateway-flags'] ? ` with ${settings['gateway-flags']}` : '';
  return `gateway on ${settings.database}${flags}, ${settings.connections} connections`;
}

/**
 * Starts the upstream and the gateway, runs `measure` with the gateway, and stops both whatever happens.
 * `--gateway-flags` replaces the gateway's Node flags and keeps its environment.
 */
export async function withWindowedGateway(settings: WindowSettings, measure: (gateway: Target) => Promise<void>): Promise<void> {
  const upstream = await startUpstream({});
  const stops: (() => Promise<void>)[] = [() => upstream.child.stop()];
  try {
    const flags = settings['gateway-flags'];
    const gateway = await startGateway({
      name: 'gateway',
      upstreamOrigin: upstream.child.ready.origin,
      database: settings.database as BenchDatabase,
      workers: 1,
      env: { SWITCHBOARD_RECORD_FLUSH_MS: settings['flush-ms'] },
      ...(flags ? { nodeFlags: flags.split(','), keepEnvironment: true } : {}),
    });
    stops.push(() => gateway.stop());
    await measure(gateway);
  } finally {
    for (const stop of stops.reverse()) await stop().catch((error: unknown) => console.error(error));
  }
}

/** The modes of `--modes`, each json or stream. */
export function windowModes(settings: WindowSettings): ('json' | 'stream')[] {
  return settings.modes.split(',').map((mode) => {
    if (mode !== 'json' && mode !== 'stream') throw new Error(`--modes: ${mode} is neither json nor stream`);
    return mode;
  });
}

/** One mode's warm-up and window; throws if any request failed. */
export async function runWindow(gateway: Target, settings: WindowSettings, mode: 'json' | 'stream', hooks: WindowHooks): Promise<LoadResult> {
  const result = await runLoad({
    origin: gateway.origin,
    path: gateway.path,
    headers: gateway.headers,
    body: requestBody(gateway.model, mode === 'stream'),
    connections: Number(settings.connections),
    warmupMs: Number(settings.warmup) * 1000,
    durationMs: 3_600_000,
    maxRequests: Number(settings.requests),
    stream: mode === 'stream',
    onMeasureStart: hooks.onMeasureStart,
    onMeasureEnd: hooks.onMeasureEnd,
  });
  if (result.non2xx + result.failures > 0) throw new Error(`${mode}: ${result.firstProblem ?? 'errors'}`);
  return result;
}
