/**
 * Which delivery failures a webhook or Langfuse destination retries: a 5xx, a 408, a 429 or a timeout may
 * pass, so they are retried with backoff; any other 4xx (a receiver refusing the signature, Langfuse refusing
 * the keys, a 404 endpoint) answers the same every time, so the delivery is dropped and counted at once, and
 * the destination's next generation is not held behind three pointless retries. Langfuse answers a batch
 * with 207 and per-event errors: a generation whose events it refused is counted as dropped (`rejected`),
 * not as sent.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { ALPHA_FIRST, messageBody, postMessage } from '#test/integration/routing/routing-support.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';
import { createDestination as createDestinationOn, deleteDestination as deleteDestinationOn } from './destination-receivers.ts';

const SIGNING_SECRET = 'whsec_retries_0123456789';
let setup: RecordsGateway;
let refusing: CaptureServer;
let lfRefusing: CaptureServer;

const createDestination = (body: Record<string, unknown>) => createDestinationOn(setup.gateway, body);

const deleteDestination = (id: string) => deleteDestinationOn(setup.gateway, id);

async function generation(): Promise<string> {
  setup.alpha.enqueue(reply.fixture('anthropic-text'));
  const call = await postMessage(setup.gateway, messageBody('test/primary', { ...ALPHA_FIRST }));
  expect(call.status).toBe(200);
  await setup.gateway.server.flushRecords();
  return call.headers.get('x-generation-id') ?? '';
}

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${setup.gateway.baseUrl}/metrics`, { headers: { authorization: `Bearer ${setup.gateway.management_key}` } })).text();
  const line = text.split('\n').find((entry) => entry.startsWith(`${name}{${labels}} `));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

const droppedCount = (kind: string, reason = 'failed') => metric('switchboard_broadcast_dropped_total', `kind="${kind}",reason="${reason}"`);

beforeAll(async () => {
  [refusing, lfRefusing] = await Promise.all([startCaptureServer({ status: 400, body: { error: 'bad signature' } }), startCaptureServer({ status: 401, body: { message: 'Invalid credentials' } })]);
  // Retries 50, 100, 200 ms apart (with jitter): short, but each still well behind the next generation.
  setup = await startRecordsGateway({ env: { SWITCHBOARD_BROADCAST_RETRY_MS: '50' } });
});
afterAll(async () => {
  await setup?.close();
  await Promise.all([refusing?.close(), lfRefusing?.close()]);
});

describe('a refusing destination (4xx)', () => {
  it('webhook: a 400 is not retried; the delivery is dropped and counted, and the next generation goes next', async () => {
    const destination = await createDestination({ name: 'refusing', kind: 'webhook', endpoint: `${refusing.url}/hook`, signing_secret: SIGNING_SECRET });
    const droppedBefore = await droppedCount('webhook');
    const first = await generation();
    await refusing.waitFor(1);
    const second = await generation();
    // One worker per destination: the second generation's delivery starts only once the first one's ended.
    const requests = await refusing.waitFor(2);
    const ids = requests.map((request) => JSON.parse(request.body.toString()).id as string);
    expect(ids.slice(0, 2)).toEqual([first, second]);
    await expect.poll(() => droppedCount('webhook'), { timeout: 10_000 }).toBeGreaterThanOrEqual(droppedBefore + 2);
    await deleteDestination(destination);
  });

  it('Langfuse: a 401 (wrong keys) is not retried', async () => {
    const destination = await createDestination({ name: 'lf-refusing', kind: 'langfuse', endpoint: lfRefusing.url, public_key: 'pk-lf-wrong', secret_key: 'sk-lf-wrong-0000' });
    const first = await generation();
    await lfRefusing.waitFor(1);
    const second = await generation();
    const requests = await lfRefusing.waitFor(2);
    const batches = requests.slice(0, 2).map((request) => (JSON.parse(request.body.toString()).batch as { body: { id: string } }[]).map((event) => event.body.id));
    expect(batches[0]).toContain(first);
    expect(batches[1]).toContain(second);
    await deleteDestination(destination);
  });
});

describe('a destination that may pass (429, 408)', () => {
  let server: Server;
  const statuses: number[] = [];
  const received: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString()).id as string);
        res.writeHead(statuses.shift() ?? 200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('webhook: a 429 and a 408 are retried until the 2xx', async () => {
    statuses.push(429, 408);
    const destination = await createDestination({ name: 'busy', kind: 'webhook', endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, signing_secret: SIGNING_SECRET });
    const id = await generation();
    await expect.poll(() => received.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    expect(received.slice(0, 3)).toEqual([id, id, id]);
    await deleteDestination(destination);
  });
});

describe('Langfuse answering 207 with per-event errors', () => {
  let server: Server;
  const batches: { id: string; type: string; body: { id: string } }[][] = [];
  beforeAll(async () => {
    // As Langfuse does: 207 always, each event in `successes` or `errors`; here every generation-create is refused.
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const batch = JSON.parse(Buffer.concat(chunks).toString()).batch as { id: string; type: string; body: { id: string } }[];
        batches.push(batch);
        const refused = batch.filter((event) => event.type === 'generation-create');
        const accepted = batch.filter((event) => event.type !== 'generation-create');
        res.writeHead(207, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            successes: accepted.map((event) => ({ id: event.id, status: 201 })),
            errors: refused.map((event) => ({ id: event.id, status: 400, message: 'Invalid request data', error: [{ code: 'invalid_type', path: ['body', 'usageDetails'] }] })),
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('counts a generation whose events Langfuse refused as dropped (rejected), not as sent', async () => {
    const destination = await createDestination({ name: 'lf-207', kind: 'langfuse', endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, public_key: 'pk-lf-ok', secret_key: 'sk-lf-ok-0000' });
    const [sentBefore, rejectedBefore] = await Promise.all([metric('switchboard_broadcast_sent_total', 'kind="langfuse"'), droppedCount('langfuse', 'rejected')]);
    const id = await generation();
    await expect.poll(() => batches.flat().some((event) => event.body.id === id), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => droppedCount('langfuse', 'rejected'), { timeout: 10_000 }).toBe(rejectedBefore + 1);
    expect(await metric('switchboard_broadcast_sent_total', 'kind="langfuse"')).toBe(sentBefore);
    // Refused once is refused again: not re-sent.
    expect(batches.flat().filter((event) => event.body.id === id)).toHaveLength(1);
    await deleteDestination(destination);
  });
});
