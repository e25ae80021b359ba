/**
 * Preloaded (`--import`) into a server under `bench/stream-timeline.ts`: stamps five moments of every streamed
 * request that carries an `x-bench-sequence` header, from the diagnostics channels Node and undici publish and
 * one wrapped method of `node:http` (nothing in the server itself is changed):
 *
 * - `http.server.request.start`: the request's head is parsed, the application is about to see it;
 * - `undici:client:sendHeaders`: the upstream request is about to be written;
 * - `undici:request:headers`: the upstream's response head has been parsed;
 * - `undici:request:bodyChunkReceived`: the first chunk of the upstream's body has been handed on;
 * - the first bytes of the answer are handed to its socket (`OutgoingMessage.prototype._writeRaw`).
 *
 * With `BENCH_COUNT_ASYNC` set it also counts, by type, the async resources (promises, ticks, timers,
 * immediates, thread-pool requests...) created between the first and the last of these moments: what the
 * request waits on besides the upstream. Requests are sequential (one connection), so the upstream call in
 * between belongs to the request last started. Times are `process.hrtime.bigint()`, shared by every process
 * of the machine. Rows go to `BENCH_TIMELINE_FILE` on exit, the counts to the same name with `.async`.
 */
import { createHook } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import { OutgoingMessage, type IncomingMessage } from 'node:http';
import { writeFileSync } from 'node:fs';

const file = process.env.BENCH_TIMELINE_FILE;
const SEQUENCE = 'x-bench-sequence';
const rows: string[] = [];
let current: { sequence: string; stamps: bigint[] } | undefined;
const asyncTypes = new Map<string, number>();
let counted = 0;

function stamp(index: number): void {
  if (current && current.stamps.length === index) current.stamps.push(process.hrtime.bigint());
}

type WriteRaw = (this: OutgoingMessage, ...args: unknown[]) => boolean;

if (file) {
  subscribe('http.server.request.start', (message) => {
    const sequence = (message as { request: IncomingMessage }).request.headers[SEQUENCE];
    current = typeof sequence === 'string' ? { sequence, stamps: [process.hrtime.bigint()] } : undefined;
    if (current) counted += 1;
  });
  subscribe('undici:client:sendHeaders', () => stamp(1));
  subscribe('undici:request:headers', () => stamp(2));
  subscribe('undici:request:bodyChunkReceived', () => stamp(3));
  const prototype = OutgoingMessage.prototype as unknown as { _writeRaw: WriteRaw };
  const writeRaw = prototype._writeRaw;
  prototype._writeRaw = function (this: OutgoingMessage, ...args: unknown[]): boolean {
    if (current && current.stamps.length === 4) {
      stamp(4);
      rows.push(`${current.sequence} ${current.stamps.join(' ')}`);
      current = undefined;
    }
    return writeRaw.apply(this, args);
  };
  if (process.env.BENCH_COUNT_ASYNC) {
    createHook({
      init(_id, type) {
        if (current) asyncTypes.set(type, (asyncTypes.get(type) ?? 0) + 1);
      },
    }).enable();
  }
  process.on('exit', () => {
    writeFileSync(file, rows.join('\n'));
    const perRequest = [...asyncTypes].map(([type, count]) => `${type} ${(count / Math.max(1, counted)).toFixed(2)}`);
    if (process.env.BENCH_COUNT_ASYNC) writeFileSync(`${file}.async`, `${counted} requests; per request: ${perRequest.join(', ')}`);
  });
}
