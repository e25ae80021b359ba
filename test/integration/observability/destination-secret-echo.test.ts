/**
 * A destination that refuses a delivery may quote what it was sent: Langfuse's per-event errors, an OTLP
 * collector's or a webhook receiver's error body can repeat the `Authorization` header (Langfuse's Basic
 * header is the base64 of `public_key:secret_key`; an OTLP endpoint's user-info is sent as one too, and the
 * destination list shows it as `***@`), a configured header's token, the token in the endpoint's query, or the webhook's signature. The gateway logs why a delivery failed; that line (and `/metrics`, and the
 * destinations' own reads) must hold none of the destination's secrets, in any form.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { distinctiveKey } from '#test/helpers/credential-gateway.ts';
import { secretFormsIn } from '#test/helpers/secret-forms.ts';
import { ALPHA_FIRST, messageBody, postMessage } from '#test/integration/routing/routing-support.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';

const LANGFUSE_SECRET = `sk-lf-${distinctiveKey('lfsecret')}`;
const OTLP_TOKEN = distinctiveKey('otlpheadertoken');
const QUERY_TOKEN = distinctiveKey('querytoken');
const SIGNING_SECRET = `whsec_${distinctiveKey('signing')}`;
const USER_INFO_PASSWORD = `p@ss/${distinctiveKey('userinfopassword')}`;
const USER_INFO_TOKEN = Buffer.from(`otel:${USER_INFO_PASSWORD}`).toString('base64');
const SECRETS = [LANGFUSE_SECRET, OTLP_TOKEN, QUERY_TOKEN, SIGNING_SECRET, USER_INFO_PASSWORD, encodeURIComponent(USER_INFO_PASSWORD), USER_INFO_TOKEN];

let setup: RecordsGateway;
let receiver: Server;
const received: string[] = [];

/** Everything a receiver was sent, quoted back as a refusing service might. */
function quoted(req: IncomingMessage, body: string): string {
  const basic = String(req.headers.authorization ?? '').replace(/^Basic /, '');
  const decoded = basic ? Buffer.from(basic, 'base64').toString('utf8') : '';
  return `refused: authorization=${req.headers.authorization ?? ''} decoded=${decoded} x-token=${req.headers['x-token'] ?? ''} url=${req.url ?? ''} signature=${req.headers['webhook-signature'] ?? req.headers['x-switchboard-signature'] ?? ''} body-bytes=${body.length}`;
}

function answer(req: IncomingMessage, body: string): { status: number; json: unknown } {
  const words = quoted(req, body);
  if (req.url?.startsWith('/lf/')) {
    const batch = (JSON.parse(body) as { batch: { id: string }[] }).batch;
    return { status: 207, json: { successes: [], errors: batch.map((event) => ({ id: event.id, status: 401, message: words, error: words })) } };
  }
  return { status: 401, json: { error: words, message: words } };
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push(`${req.url ?? ''}`);
      const { status, json } = answer(req, body);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  setup = await startRecordsGateway({ env: { SWITCHBOARD_BROADCAST_RETRY_MS: '20' } });
  for (const body of [
    { name: 'lf', kind: 'langfuse', endpoint: `${origin}/lf`, public_key: 'pk-lf-echo', secret_key: LANGFUSE_SECRET },
    { name: 'otlp', kind: 'otlp', endpoint: `${origin.replace('http://', `http://otel:${encodeURIComponent(USER_INFO_PASSWORD)}@`)}/otlp/v1/traces?api_key=${QUERY_TOKEN}`, protocol: 'http/json', headers: { 'X-Token': OTLP_TOKEN } },
    { name: 'hook', kind: 'webhook', endpoint: `${origin}/hook`, signing_secret: SIGNING_SECRET },
  ]) {
    const created = await callApi(setup.gateway.baseUrl, 'POST', '/observability/destinations', { key: setup.gateway.management_key, body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
});

afterAll(async () => {
  await setup?.close();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

it('logs why each destination refused a delivery without any of its secrets', async () => {
  const logsBefore = setup.gateway.logs.length;
  setup.alpha.enqueue(reply.fixture('anthropic-text'));
  const call = await postMessage(setup.gateway, messageBody('test/primary', { ...ALPHA_FIRST }));
  expect(call.status).toBe(200);
  await setup.gateway.server.flushRecords();
  // Each destination was reached and refused, and each refusal was logged with its reason.
  await expect.poll(() => ['/lf/', '/otlp/', '/hook'].every((path) => received.some((url) => url.startsWith(path))), { timeout: 15_000 }).toBe(true);
  await expect
    .poll(() => setup.gateway.logs.slice(logsBefore).filter((line) => /refused|failed/.test(line) && /"kind":"(langfuse|otlp|webhook)"/.test(line)).length, { timeout: 15_000 })
    .toBeGreaterThanOrEqual(3);
  const logs = setup.gateway.logs.slice(logsBefore).join('\n');
  expect(logs).toContain('refused: authorization=');
  const metrics = await (await fetch(`${setup.gateway.baseUrl}/metrics`, { headers: { authorization: `Bearer ${setup.gateway.management_key}` } })).text();
  const listed = JSON.stringify((await callApi(setup.gateway.baseUrl, 'GET', '/observability/destinations', { key: setup.gateway.management_key })).body);
  expect(listed).toContain('http://***@127.0.0.1:');
  expect([...secretFormsIn(logs, SECRETS, 'a log line'), ...secretFormsIn(metrics, SECRETS, '/metrics'), ...secretFormsIn(listed, SECRETS, 'the destination list')]).toEqual([]);
});
