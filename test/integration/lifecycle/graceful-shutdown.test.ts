/**
 * SIGTERM on a real gateway process with 20 streams and 2 JSON requests in flight: new connections are
 * refused at once, `GET /health` on a connection already open answers 503 `draining` (named in `request-id`),
 * the streams that finish within `SWITCHBOARD_SHUTDOWN_GRACE_MS` finish, the others end at the deadline with an
 * in-band `overloaded_error` event, every stream is well-formed, all 22 generation records are in the database,
 * and the process exits 0. On PGlite and (with DATABASE_URL) PostgreSQL.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { testDrivers } from '#test/helpers/test-database.ts';
import { issueInferenceKey, processStore, startGatewayProcess, type GatewayProcess, type ProcessStore } from '#test/helpers/gateway-process.ts';
import { openDatabase } from '#src/store/database.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import type { RawSseEvent } from '#src/providers/provider-adapter.ts';
import { limitsCatalog, LIMITED_REQUEST } from '#test/integration/limits/limits-support.ts';

const GRACE_MS = 3_000;

interface OpenStream {
  /** Resolves when the first event has arrived. */
  started: Promise<void>;
  /** Every event, once the stream has ended. */
  ended: Promise<RawSseEvent[]>;
}

function openStream(baseUrl: string, key: string): OpenStream {
  let started!: () => void;
  const startedPromise = new Promise<void>((resolve) => (started = resolve));
  const ended = (async () => {
    const response = await fetch(`${baseUrl}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...LIMITED_REQUEST, stream: true }),
    });
    expect(response.status).toBe(200);
    const events: RawSseEvent[] = [];
    for await (const event of readSseEvents(response.body as ReadableStream<Uint8Array>)) {
      events.push(event);
      started();
    }
    return events;
  })();
  // When an earlier assertion fails, the cleanup kills the gateway under these streams; that is not news.
  ended.catch(() => undefined);
  return { started: startedPromise, ended };
}

/** A connection opened now, whose request is sent later: it is busy (not idle) when the drain starts. */
function halfSentRequest(origin: string): { finish(path: string): Promise<string> } {
  const { hostname, port } = new URL(origin);
  const socket = connect(Number(port), hostname);
  socket.write(`GET `);
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => undefined);
  return {
    async finish(path) {
      socket.write(`${path} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      return received;
    },
  };
}

/** Whether a new TCP connection to the gateway is accepted, or the error code it is refused with. */
function connectOutcome(origin: string): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

async function waitFor(condition: () => boolean, what: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function waitForLog(gateway: GatewayProcess, text: string): Promise<void> {
  await waitFor(() => gateway.logs.some((line) => line.includes(text)), () => `a log line has ${text}:\n${gateway.logs.join('\n')}`);
}

let cleanup: (() => Promise<void>) | undefined;

afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe.each(testDrivers())('graceful shutdown of a gateway process on %s', (driver) => {
  it('refuses new requests, lets streams finish or ends them at the deadline, writes every record, exits 0', async () => {
    const upstream: FakeUpstream = await startFakeAnthropic();
    // The two JSON answers come after 1.5 s, so they are in flight at the signal and finish within the grace period.
    upstream.enqueue(reply.fixture('anthropic-text', { delayMs: 1_500 }), reply.fixture('anthropic-text', { delayMs: 1_500 }));
    const store: ProcessStore = await processStore(driver);
    let gateway: GatewayProcess | undefined;
    cleanup = async () => {
      await gateway?.stop('SIGKILL');
      await store.drop();
      await upstream.close();
    };
    gateway = await startGatewayProcess({
      env: { ...store.env, SWITCHBOARD_SHUTDOWN_GRACE_MS: String(GRACE_MS), SWITCHBOARD_RECORD_FLUSH_MS: '60000' },
      catalogYaml: limitsCatalog(upstream),
    });
    const { key } = await issueInferenceKey(gateway);

    const json = Array.from({ length: 2 }, () =>
      fetch(`${gateway!.baseUrl}/messages`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(LIMITED_REQUEST) }),
    );
    // The streams' answers are queued only once both JSON requests took theirs, so which stream gets which is
    // decided by the stream's own arrival: half trickle for 1.6 s (they finish within the grace period), half
    // for 11 s (they do not).
    await waitFor(() => upstream.requests.length >= 2, () => 'the two JSON requests reach the upstream');
    for (let index = 0; index < 20; index += 1) upstream.enqueue(reply.fixture('anthropic-text', { chunkDelayMs: index % 2 === 0 ? 150 : 1_000, delayMs: 100 }));
    const streams = Array.from({ length: 20 }, () => openStream(gateway!.baseUrl, key));
    await Promise.all(streams.map((stream) => stream.started));
    const pending = halfSentRequest(gateway.origin);
    await new Promise((resolve) => setTimeout(resolve, 100));

    const signalledAt = Date.now();
    gateway.child.kill('SIGTERM');
    await waitForLog(gateway, '"message":"stopping"');

    // A new connection is refused; a request on a connection already open hears that the instance drains.
    expect(await connectOutcome(gateway.origin)).toBe('ECONNREFUSED');
    const health = await pending.finish('/api/v1/health');
    expect(health).toMatch(/^HTTP\/1\.1 503 /);
    expect(health).toMatch(/connection: close/i);
    // The 503 names itself, as every answer that is not a success does.
    expect(health).toMatch(/\r\nrequest-id: gen_[A-Za-z0-9_-]{24}\r\n/i);
    expect(JSON.parse(health.slice(health.indexOf('\r\n\r\n') + 4))).toEqual({ status: 'draining', version: expect.any(String) });

    const ended = await Promise.all(streams.map((stream) => stream.ended));
    const finishedAt = Date.now();
    let completed = 0;
    let cut = 0;
    for (const events of ended) {
      expect(events[0]?.event).toBe('message_start');
      const last = events.at(-1);
      if (last?.event === 'message_stop') {
        completed += 1;
        continue;
      }
      expect(last?.event).toBe('error');
      expect(JSON.parse(last?.data ?? '{}')).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'The gateway is shutting down; retry the request' } });
      cut += 1;
    }
    expect(completed).toBe(10);
    expect(cut).toBe(10);
    // The cut streams ended at the deadline, not when their upstream would have finished.
    expect(finishedAt - signalledAt).toBeGreaterThanOrEqual(GRACE_MS - 200);
    expect(finishedAt - signalledAt).toBeLessThan(GRACE_MS + 3_000);
    for (const response of await Promise.all(json)) expect(response.status).toBe(200);

    expect(await gateway.exited).toBe(0);
    expect(gateway.logs.join('\n')).toContain('"message":"stopped"');

    // Every record was written before the exit (the flush interval alone would not have come round).
    const database = store.testDatabase?.database ?? (await openDatabase({ dataDir: store.env.SWITCHBOARD_DATA_DIR as string, purpose: 'test' }));
    try {
      const rows = await database.db.execute<{ status: string; error_type: string | null; stream: boolean }>(sql`select status, error_type, stream from generations`);
      const records = (rows as unknown as { rows: { status: string; error_type: string | null; stream: boolean }[] }).rows;
      expect(records).toHaveLength(22);
      expect(records.filter((record) => record.stream && record.status === 'success')).toHaveLength(10);
      expect(records.filter((record) => record.stream && record.status === 'error' && record.error_type === 'ShuttingDownError')).toHaveLength(10);
      expect(records.filter((record) => !record.stream && record.status === 'success')).toHaveLength(2);
    } finally {
      if (!store.testDatabase) await database.close();
    }
  }, 90_000);
});
