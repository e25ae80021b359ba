/**
 * `node bench/latency-timeline.ts [--requests 5000] [--rounds 2] [--database pglite]`: where one connection's
 * latency goes, through the pass-through floor and through the gateway. Requests are sent one at a time, each
 * JSON, to an upstream in this process that stamps when a request's body has arrived and when it answers; the
 * floor and the gateway run as `npm run bench` starts them, with bench/latency-marks.ts preloaded to stamp
 * when a request reaches the application, when the upstream call is written, when the upstream's answer is in
 * and when the answer is handed to the kernel. All stamps are on the machine's monotonic clock, so a request's
 * time splits into seven consecutive parts:
 *
 * | part | from → to |
 * |---|---|
 * | to the proxy | the client sends → the proxy's application sees the request |
 * | proxy, inbound | → the upstream call is written (reading, checking, planning the request) |
 * | to the upstream | → the upstream has the whole request |
 * | upstream | → the upstream answers |
 * | back to the proxy | → the proxy has the answer's head |
 * | proxy, outbound | → the proxy's answer is handed to the kernel |
 * | to the client | → the client has the whole answer |
 *
 * Each part's median is printed per target and round (targets take turns), with the median total. The first
 * 1,000 requests of each round are a warm-up. Medians of parts do not add up to the median total exactly.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { median, proxyStamps } from './timeline-stamps.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { startFloor, startGateway, type Target } from './targets.ts';
import type { BenchDatabase } from './gateway-setup.ts';
import { BENCH_MESSAGE } from './bench-stream.ts';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '5000' }, rounds: { type: 'string', default: '2' }, database: { type: 'string', default: 'pglite' } } });
const REQUESTS = Number(values.requests);
const WARMUP = 1000;
const PARTS = ['to the proxy', 'proxy, inbound', 'to the upstream', 'upstream', 'back to the proxy', 'proxy, outbound', 'to the client'];

// The upstream's two stamps of the request in flight (one at a time).
let arrived = 0n;
let answered = 0n;

function answer(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  req.on('end', () => {
    arrived = process.hrtime.bigint();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': BENCH_MESSAGE.length, 'request-id': 'req_bench' });
    answered = process.hrtime.bigint();
    res.end(BENCH_MESSAGE);
  });
}

/** One request's stamps on this side: sent, the upstream's two, answer read. */
type ClientStamps = [bigint, bigint, bigint, bigint];

async function sequential(target: Target, firstSequence: number): Promise<Map<number, ClientStamps>> {
  const pool = new Pool(target.origin, { connections: 1 });
  const body = JSON.stringify({ model: target.model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello there, how are you?' }] });
  const stamps = new Map<number, ClientStamps>();
  try {
    for (let index = 0; index < WARMUP + REQUESTS; index += 1) {
      const sequence = firstSequence + index;
      const sent = process.hrtime.bigint();
      const response = await pool.request({ path: target.path, method: 'POST', headers: { ...target.headers, 'x-bench-sequence': String(sequence) }, body });
      const text = await response.body.text();
      const read = process.hrtime.bigint();
      if (response.statusCode !== 200) throw new Error(`${target.name} answered ${response.statusCode}: ${text}`);
      if (index >= WARMUP) stamps.set(sequence, [sent, arrived, answered, read]);
    }
  } finally {
    await pool.close();
  }
  return stamps;
}

function report(name: string, round: number, client: Map<number, ClientStamps>, proxy: Map<number, bigint[]>): void {
  const parts: number[][] = PARTS.map(() => []);
  const totals: number[] = [];
  for (const [sequence, [sent, arrivedAt, answeredAt, read]] of client) {
    const stamps = proxy.get(sequence);
    if (!stamps || stamps.length !== 4) continue;
    const [started, written, headed, handed] = stamps as [bigint, bigint, bigint, bigint];
    const points = [sent, started, written, arrivedAt, answeredAt, headed, handed, read];
    for (let part = 0; part < PARTS.length; part += 1) parts[part]!.push(Number(points[part + 1]! - points[part]!) / 1000);
    totals.push(Number(read - sent) / 1000);
  }
  const cells = PARTS.map((part, index) => `${part} ${median(parts[index]!).toFixed(1)}`);
  console.log(`${name.padEnd(18)} round ${round + 1}, ${totals.length} requests, µs: ${cells.join(' | ')} | total ${median(totals).toFixed(1)}`);
}

const directory = mkdtempSync(join(tmpdir(), 'latency-timeline-'));
const upstream = createServer(answer);
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
const preload = ['--import', new URL('./latency-marks.ts', import.meta.url).pathname];
const files = { floor: join(directory, 'floor.txt'), gateway: join(directory, 'gateway.txt') };
const floor = await startFloor(origin, { execArgv: preload, env: { BENCH_TIMELINE_FILE: files.floor } });
const gateway = await startGateway({
  name: 'gateway',
  upstreamOrigin: origin,
  database: values.database as BenchDatabase,
  workers: 1,
  execArgv: preload,
  env: { BENCH_TIMELINE_FILE: files.gateway },
});
const measured: { target: Target; round: number; stamps: Map<number, ClientStamps> }[] = [];
try {
  for (let round = 0; round < Number(values.rounds); round += 1) {
    const order = round % 2 === 0 ? [floor, gateway] : [gateway, floor];
    for (const target of order) measured.push({ target, round, stamps: await sequential(target, (measured.length + 1) * 1_000_000) });
  }
} finally {
  // The proxies write their stamps as they exit.
  await floor.stop();
  await gateway.stop();
  upstream.close();
}
const proxies = new Map<Target, Map<number, bigint[]>>([
  [floor, proxyStamps(files.floor)],
  [gateway, proxyStamps(files.gateway)],
]);
for (const { target, round, stamps } of measured) report(target.name, round, stamps, proxies.get(target)!);
rmSync(directory, { recursive: true, force: true });
