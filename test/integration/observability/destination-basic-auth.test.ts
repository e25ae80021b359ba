/**
 * Broadcast destinations of the configuration file whose endpoint carries credentials in its user-info
 * (`http://user:password@host/…`), each receiver behind HTTP Basic authentication (a 401 without exactly the
 * right header, as a collector or webhook receiver behind nginx's `auth_basic` answers): the gateway delivers
 * without the user-info and with `Authorization: Basic base64(user:password)`, the pair percent-decoded, and
 * the rest of the endpoint (its query) exactly as written. A webhook (undici, which sent no user-info before)
 * and an OTLP/JSON collector; driven with the Anthropic SDK.
 */
import Anthropic from '@anthropic-ai/sdk';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { ALPHA_FIRST } from '#test/integration/routing/routing-support.ts';
import { arrived } from './destination-receivers.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';

const PASSWORD = 'h@ok/pass-5e0b7a9c31';
const AUTHORIZATION = `Basic ${Buffer.from(`relay:${PASSWORD}`, 'utf8').toString('base64')}`;

interface Received {
  url: string;
  headers: IncomingHttpHeaders;
  status: number;
}

/** A receiver behind Basic authentication: 401 without the right header, else 200; every request recorded. */
async function startBasicReceiver(): Promise<{ server: Server; port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const status = req.headers.authorization === AUTHORIZATION ? 200 : 401;
      received.push({ url: req.url ?? '', headers: req.headers, status });
      res.writeHead(status, { 'content-type': 'application/json', ...(status === 401 ? { 'www-authenticate': 'Basic realm="relay"' } : {}) }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, received };
}

let hook: Awaited<ReturnType<typeof startBasicReceiver>>;
let collector: Awaited<ReturnType<typeof startBasicReceiver>>;
let setup: RecordsGateway;

beforeAll(async () => {
  [hook, collector] = await Promise.all([startBasicReceiver(), startBasicReceiver()]);
  const userInfo = `relay:${encodeURIComponent(PASSWORD)}`;
  const extraYaml = [
    'observability:',
    '  destinations:',
    `    - { name: hook, kind: webhook, endpoint: "http://${userInfo}@127.0.0.1:${hook.port}/hook?tag=a%2Fb", signing_secret: whsec_basic-auth-signing-secret }`,
    `    - { name: traces, kind: otlp, endpoint: "http://${userInfo}@127.0.0.1:${collector.port}/v1/traces", protocol: http/json, headers: { X-Scope: tenant-1 } }`,
    '',
  ].join('\n');
  setup = await startRecordsGateway({ extraYaml });
});

afterAll(async () => {
  await setup?.close();
  for (const receiver of [hook, collector]) receiver?.server.closeAllConnections();
  await Promise.all([hook, collector].map((receiver) => receiver && new Promise((resolve) => receiver.server.close(resolve))));
});

it('a webhook and an OTLP collector behind Basic authentication receive the generation, the user-info sent as Basic', async () => {
  setup.alpha.enqueue(reply.fixture('anthropic-text'));
  const client = new Anthropic({ baseURL: `${setup.gateway.origin}/api`, authToken: setup.gateway.api_key, apiKey: null, maxRetries: 0 });
  await client.messages.create({ model: 'test/primary', max_tokens: 64, messages: [{ role: 'user', content: 'Hello there' }], ...ALPHA_FIRST });
  await arrived('the webhook delivery', () => hook.received.find((request) => request.status === 200));
  await arrived('the OTLP export', () => collector.received.find((request) => request.status === 200));
  // Every delivery authenticated: none was refused, and the query reached the receiver as written.
  expect(hook.received.map((request) => [request.url, request.status])).toEqual([['/hook?tag=a%2Fb', 200]]);
  expect(hook.received[0]?.headers['x-switchboard-signature']).toBeDefined();
  expect(collector.received.every((request) => request.status === 200 && request.url === '/v1/traces')).toBe(true);
  expect(collector.received[0]?.headers['x-scope']).toBe('tenant-1');
});
