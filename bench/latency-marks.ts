/**
 * Preloaded (`--import`) into a server under `bench/latency-timeline.ts`: stamps four moments of every request
 * that carries an `x-bench-sequence` header, from diagnostics channels Node and undici publish (nothing in the
 * server is changed or wrapped):
 *
 * - `http.server.request.start`: the request's head is parsed, the application is about to see it;
 * - `undici:client:sendHeaders`: the upstream request is about to be written (its body goes in the same write);
 * - `undici:request:headers`: the upstream's response head has been parsed;
 * - `http.server.response.finish`: the answer has been handed to the kernel.
 *
 * Times are `process.hrtime.bigint()`, the monotonic clock every process of the machine shares, so the
 * timeline script lines them up with its own. Requests are sequential (one connection), so the upstream call
 * in between belongs to the request last started. The rows go to `BENCH_TIMELINE_FILE` on exit.
 */
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_TIMELINE_FILE;
const SEQUENCE = 'x-bench-sequence';
const rows: string[] = [];
let current: { sequence: string; stamps: bigint[] } | undefined;

function stamp(index: number): void {
  if (current && current.stamps.length === index) current.stamps.push(process.hrtime.bigint());
}

if (file) {
  subscribe('http.server.request.start', (message) => {
    const sequence = (message as { request: IncomingMessage }).request.headers[SEQUENCE];
    current = typeof sequence === 'string' ? { sequence, stamps: [process.hrtime.bigint()] } : undefined;
  });
  subscribe('undici:client:sendHeaders', () => stamp(1));
  subscribe('undici:request:headers', () => stamp(2));
  subscribe('http.server.response.finish', (message) => {
    const sequence = (message as { request: IncomingMessage }).request.headers[SEQUENCE];
    if (!current || sequence !== current.sequence) return;
    stamp(3);
    if (current.stamps.length === 4) rows.push(`${current.sequence} ${current.stamps.join(' ')}`);
    current = undefined;
  });
  process.on('exit', () => writeFileSync(file, rows.join('\n')));
}
