/** The bench's load generator: its warm-up lasts until both its time and its count of answers are reached. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLoad, type LoadOptions } from '../../../bench/load-generator.ts';

const MESSAGE = JSON.stringify({ type: 'message', content: [] });
let server: Server;
let origin: string;
let answered = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      answered += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(MESSAGE);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Runs one load and returns how many answers the server had given when the measured window opened. */
async function answeredAtWindow(options: Pick<LoadOptions, 'warmupMs' | 'warmupRequests' | 'connections'>): Promise<{ atWindow: number; requests: number }> {
  answered = 0;
  let atWindow = -1;
  const result = await runLoad({
    origin,
    path: '/v1/messages',
    headers: { 'content-type': 'application/json' },
    body: '{}',
    durationMs: 50,
    maxRequests: 100_000,
    stream: false,
    ...options,
    async onMeasureStart() {
      atWindow = answered;
    },
    async onMeasureEnd() {},
  });
  expect(result.non2xx + result.failures).toBe(0);
  return { atWindow, requests: result.requests };
}

describe('runLoad warm-up', () => {
  it('waits for its count of answers when they take longer than its time', async () => {
    const { atWindow, requests } = await answeredAtWindow({ warmupMs: 1, warmupRequests: 400, connections: 1 });
    expect(atWindow).toBeGreaterThanOrEqual(400);
    expect(requests).toBeGreaterThan(0);
  });

  it('waits for its time when the answers come sooner', async () => {
    const started = performance.now();
    const { atWindow } = await answeredAtWindow({ warmupMs: 300, warmupRequests: 5, connections: 4 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    expect(atWindow).toBeGreaterThan(5);
  });

  it('is time alone without a count', async () => {
    const { atWindow } = await answeredAtWindow({ warmupMs: 1, connections: 1 });
    // A 1 ms warm-up on one connection sees a handful of answers at most, far from the first test's 400.
    expect(atWindow).toBeLessThan(400);
  });
});
