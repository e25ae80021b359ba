/**
 * `node bench/idle-gap.ts [--gap 30] [--cycles 4] [--node-flags a,b]`: what a lull costs the next burst. One
 * gateway (as `npm run bench` starts it, on PGlite) takes JSON load at 64 connections in windows of 1 s warm-up
 * and 3 s measured: two back to back, then `cycles` times an idle gap of `gap` seconds followed by a window, and
 * a window right after it. Each line gives the window's CPU per request and throughput and the gateway's committed
 * V8 heap after it. A heap shrunk during the gap (by V8's memory reducer, or by the gateway's own idle
 * compaction) shows as a smaller heap and a dearer window after the gap than the one after it.
 * `--node-flags` replaces the gateway's Node flags (keeping its environment), to compare.
 */
import { parseArgs } from 'node:util';
import { startGateway, startUpstream } from './targets.ts';
import { measureWindow } from './measure.ts';

const { values } = parseArgs({ options: { gap: { type: 'string', default: '30' }, cycles: { type: 'string', default: '4' }, 'node-flags': { type: 'string' } } });
const flags = values['node-flags']?.split(',');
const upstream = await startUpstream({});
const gateway = await startGateway({ name: 'gateway', upstreamOrigin: upstream.child.ready.origin, database: 'pglite', workers: 1, ...(flags ? { nodeFlags: flags, keepEnvironment: true } : {}) });

const options = { warmupMs: 1000, durationMs: 3000, maxRequests: 200_000, probeMs: 0, connectionCounts: [64], modes: [false], rounds: 1 };

async function measuredWindow(label: string): Promise<void> {
  const { load, cpuMicrosPerRequest } = await measureWindow({ target: gateway, profileDir: undefined, probe: false }, upstream.child, false, 64, options);
  const memory = await gateway.child.memory();
  console.log(`${label.padEnd(18)} ${cpuMicrosPerRequest.toFixed(0)} µs CPU/req, ${load.requestsPerSecond.toFixed(0)} req/s, heap committed ${(memory.heapTotal / 2 ** 20).toFixed(0)} MB, errors ${load.non2xx}/${load.failures}`);
}

try {
  await measuredWindow('warm');
  await measuredWindow('warm');
  for (let cycle = 0; cycle < Number(values.cycles); cycle += 1) {
    await new Promise((resolve) => setTimeout(resolve, Number(values.gap) * 1000));
    await measuredWindow(`after ${values.gap} s idle`);
    await measuredWindow('right after');
  }
} finally {
  await gateway.stop();
  await upstream.child.stop();
}
