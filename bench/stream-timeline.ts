/**
 * `node bench/stream-timeline.ts [--requests 2000] [--rounds 2] [--database pglite] [--count-async]`: where a streamed answer's
 * time to its first byte goes at one connection, through the pass-through floor and through the gateway. As
 * the sequential streaming probe does (bench/stream-probe.ts), requests are sent one at a time over `node:http`
 * to a paced upstream (the status line, headers and `message_start` in one packet, then one event per 1 ms);
 * here the upstream runs in this process and stamps when a request's body has arrived and when it answers, and
 * the floor and the gateway run with bench/stream-marks.ts preloaded. A request's time to its first byte splits
 * into eight consecutive parts:
 *
 * | part | from → to |
 * |---|---|
 * | to the proxy | the client sends → the proxy's application sees the request |
 * | proxy, inbound | → the upstream call is written |
 * | to the upstream | → the upstream has the whole request |
 * | upstream | → the upstream writes its first packet |
 * | back to the proxy | → the proxy has parsed the answer's head |
 * | proxy, body | → the proxy has parsed the first body chunk (the same packet) |
 * | proxy, outbound | → the proxy hands its first bytes to the socket |
 * | to the client | → the client has its first byte |
 *
 * Targets take turns request by request (the floor, then the gateway, or the reverse every other round, as the
 * probe rotates), each on its own connection. Each part's median is printed per target and round. The first
 * 500 requests of each target are a warm-up, after a load of 4,000 one-packet streams at 4 connections.
 *
 * Also printed: when the request reached the upstream and when the upstream wrote the first text delta, both
 * from the client's sending. The upstream paces its events with a 1 ms timer, which fires on its event loop's
 * millisecond clock: a request that reaches it later has its delta written less than that much later, so a
 * proxy's lag at the first delta is not its lag at the first byte plus the same per-event cost.
 * `--count-async`: the async resources each proxy creates between the request's start and its first write, by
 * type (a timer, an immediate or a thread-pool request there is a wait on the first byte's path).
 */
import { createServer, request, Agent, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { median, proxyStamps } from './timeline-stamps.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startFloor, startGateway, type Target } from './targets.ts';
import type { BenchDatabase } from './gateway-setup.ts';
import { BENCH_MESSAGE, streamEvents } from './bench-stream.ts';
import { PACED_MODEL } from './bench-models.ts';
import { requestBody } from './measure.ts';
import { runLoad } from './load-generator.ts';

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '2' }, database: { type: 'string', default: 'pglite' }, 'count-async': { type: 'boolean', default: false } },
});
const REQUESTS = Number(values.requests);
const WARMUP = 500;
const PARTS = ['to the proxy', 'proxy, inbound', 'to the upstream', 'upstream', 'back to the proxy', 'proxy, body', 'proxy, outbound', 'to the client'];

const PACED = streamEvents(PACED_MODEL).map((event) => Buffer.from(event));
const WHOLE = Buffer.concat(streamEvents('claude-sonnet-4-5').map((event) => Buffer.from(event)));
// The upstream's two stamps of the request in flight (one at a time).
let arrived = 0n;
let answered = 0n;
// When the upstream wrote the first text delta (its third event), and when the client read it.
let deltaWritten = 0n;

function pace(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  let next = 0;
  const send = (): void => {
    const event = PACED[next++];
    if (!event || res.destroyed) return;
    if (next === 3) deltaWritten = process.hrtime.bigint();
    if (next === PACED.length) res.end(event);
    else {
      res.write(event);
      setTimeout(send, 1);
    }
  };
  answered = process.hrtime.bigint();
  send();
}

function answer(req: IncomingMessage, res: ServerResponse): void {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    if (body.includes(PACED_MODEL)) {
      arrived = process.hrtime.bigint();
      pace(res);
    } else if (body.includes('"stream":true')) res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' }).end(WHOLE);
    else res.writeHead(200, { 'content-type': 'application/json', 'content-length': BENCH_MESSAGE.length }).end(BENCH_MESSAGE);
  });
}

/** One request's stamps on this side: sent, the upstream's two, the first byte read, the delta written and read. */
type ClientStamps = [bigint, bigint, bigint, bigint, bigint, bigint];

function once(agent: Agent, target: Target, sequence: number, body: string): Promise<ClientStamps> {
  return new Promise((resolve, reject) => {
    const url = new URL(target.path, target.origin);
    let first = 0n;
    let delta = 0n;
    let seen = '';
    const sent = process.hrtime.bigint();
    const req = request(url, { method: 'POST', agent, headers: { ...target.headers, 'x-bench-sequence': String(sequence), 'content-length': Buffer.byteLength(body) } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${target.name} answered ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const now = process.hrtime.bigint();
        if (first === 0n) first = now;
        if (delta === 0n) {
          seen = seen.slice(-16) + chunk;
          if (seen.includes('"text_delta"')) delta = now;
        }
      });
      res.on('end', () => resolve([sent, arrived, answered, first, deltaWritten, delta]));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function report(name: string, round: number, client: Map<number, ClientStamps>, proxy: Map<number, bigint[]>): void {
  const parts: number[][] = PARTS.map(() => []);
  const totals: number[] = [];
  const deltaParts: number[][] = [[], [], [], []];
  for (const [sequence, [sent, arrivedAt, answeredAt, first, deltaAt, deltaRead]] of client) {
    deltaParts[0]!.push(Number(deltaAt - sent) / 1000);
    deltaParts[1]!.push(Number(deltaRead - deltaAt) / 1000);
    deltaParts[2]!.push(Number(deltaRead - sent) / 1000);
    deltaParts[3]!.push(Number(arrivedAt - sent) / 1000);
    const stamps = proxy.get(sequence);
    if (!stamps || stamps.length !== 5) continue;
    const [started, written, headed, bodied, handed] = stamps as [bigint, bigint, bigint, bigint, bigint];
    const points = [sent, started, written, arrivedAt, answeredAt, headed, bodied, handed, first];
    for (let part = 0; part < PARTS.length; part += 1) parts[part]!.push(Number(points[part + 1]! - points[part]!) / 1000);
    totals.push(Number(first - sent) / 1000);
  }
  const cells = PARTS.map((part, index) => `${part} ${median(parts[index]!).toFixed(1)}`);
  console.log(`${name.padEnd(18)} round ${round + 1}, ${totals.length} requests, µs: ${cells.join(' | ')} | first byte ${median(totals).toFixed(1)}`);
  console.log(
    `${''.padEnd(18)} the request at the upstream ${median(deltaParts[3]!).toFixed(1)}; the first text delta written by the upstream ${median(deltaParts[0]!).toFixed(1)}, read ${median(deltaParts[1]!).toFixed(1)} after that, ${median(deltaParts[2]!).toFixed(1)} in all`,
  );
}

const directory = mkdtempSync(join(tmpdir(), 'stream-timeline-'));
const upstream = createServer({ keepAliveTimeout: 65_000 }, answer);
await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
const preload = ['--import', new URL('./stream-marks.ts', import.meta.url).pathname];
const files = { floor: join(directory, 'floor.txt'), gateway: join(directory, 'gateway.txt') };
const counting: Record<string, string> = values['count-async'] ? { BENCH_COUNT_ASYNC: '1' } : {};
const floor = await startFloor(origin, { execArgv: preload, env: { BENCH_TIMELINE_FILE: files.floor, ...counting } });
const gateway = await startGateway({ name: 'gateway', upstreamOrigin: origin, database: values.database as BenchDatabase, workers: 1, execArgv: preload, env: { BENCH_TIMELINE_FILE: files.gateway, ...counting } }).catch(async (error: unknown) => {
  await floor.stop();
  upstream.close();
  throw error;
});
const targets = [floor, gateway];
const measured = targets.map(() => [] as Map<number, ClientStamps>[]);
try {
  for (const target of targets) {
    await runLoad({ origin: target.origin, path: target.path, headers: target.headers, body: requestBody(target.model, true), connections: 4, warmupMs: 0, warmupRequests: 0, durationMs: 60_000, maxRequests: 4000, stream: true, onMeasureStart: async () => {}, onMeasureEnd: async () => {} });
  }
  const agents = targets.map(() => new Agent({ keepAlive: true, maxSockets: 1 }));
  let sequence = 1;
  for (let round = 0; round < Number(values.rounds); round += 1) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    const stamps = targets.map(() => new Map<number, ClientStamps>());
    for (let index = 0; index < WARMUP + REQUESTS; index += 1) {
      for (const which of order) {
        const target = targets[which]!;
        const result = await once(agents[which]!, target, sequence, requestBody(target.pacedModel, true));
        if (index >= WARMUP) stamps[which]!.set(sequence, result);
        sequence += 1;
      }
    }
    stamps.forEach((map, which) => measured[which]!.push(map));
  }
  for (const agent of agents) agent.destroy();
} finally {
  await floor.stop();
  await gateway.stop();
  upstream.close();
}
const written = [files.floor, files.gateway];
const proxies = written.map(proxyStamps);
for (let round = 0; round < Number(values.rounds); round += 1) targets.forEach((target, which) => report(target.name, round, measured[which]![round]!, proxies[which]!));
if (values['count-async']) {
  targets.forEach((target, which) => console.log(`${target.name}, async resources from the request's start to its first write: ${readFileSync(`${written[which]}.async`, 'utf8')}`));
}
rmSync(directory, { recursive: true, force: true });
