/**
 * A destination endpoint whose authority ends at a backslash (`http://user:pw@hostA\path@hostB/…`): every
 * WHATWG URL parser (Node's, undici's, the allowlist's checks) reads the host as hostA, and the rest, second
 * `@` included, as the path. The user-info sent as Basic authentication must be cut at hostA too, so that the
 * delivery and its credentials go to the host the endpoint names and the guards judged, never to hostB.
 */
import Anthropic from '@anthropic-ai/sdk';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { ALPHA_FIRST } from '#test/integration/routing/routing-support.ts';
import { arrived } from './destination-receivers.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';

const PASSWORD = 'bs-pass-9c4e21a7f0';
const AUTHORIZATION = `Basic ${Buffer.from(`relay:${PASSWORD}`, 'utf8').toString('base64')}`;

interface Received {
  url: string;
  headers: IncomingHttpHeaders;
}

/** A receiver answering 200 to everything, every request recorded. */
async function startReceiver(): Promise<{ server: Server; port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, received };
}

let named: Awaited<ReturnType<typeof startReceiver>>;
let other: Awaited<ReturnType<typeof startReceiver>>;
let setup: RecordsGateway;

beforeAll(async () => {
  [named, other] = await Promise.all([startReceiver(), startReceiver()]);
  // YAML's "\\" is one backslash.
  const endpoint = (path: string) => `http://relay:${PASSWORD}@127.0.0.1:${named.port}\\\\${path}@127.0.0.1:${other.port}/in`;
  const extraYaml = [
    'observability:',
    '  destinations:',
    `    - { name: hook, kind: webhook, endpoint: "${endpoint('hook')}", signing_secret: whsec_backslash-signing-secret }`,
    `    - { name: traces, kind: otlp, endpoint: "${endpoint('traces')}", protocol: http/json }`,
    '',
  ].join('\n');
  setup = await startRecordsGateway({ extraYaml });
});

afterAll(async () => {
  await setup?.close();
  for (const receiver of [named, other]) receiver?.server.closeAllConnections();
  await Promise.all([named, other].map((receiver) => receiver && new Promise((resolve) => receiver.server.close(resolve))));
});

it('delivers to the host the URL parser reads, the user-info before it sent as Basic, and nothing to the host after the path\'s @', async () => {
  setup.alpha.enqueue(reply.fixture('anthropic-text'));
  const client = new Anthropic({ baseURL: `${setup.gateway.origin}/api`, authToken: setup.gateway.api_key, apiKey: null, maxRetries: 0 });
  await client.messages.create({ model: 'test/primary', max_tokens: 64, messages: [{ role: 'user', content: 'Hello there' }], ...ALPHA_FIRST });
  await arrived('the webhook delivery and the OTLP export', () => (named.received.length + other.received.length >= 2 ? true : undefined));
  expect(other.received).toEqual([]);
  expect(named.received.map((request) => [request.url, request.headers.authorization]).sort()).toEqual([
    [`/hook@127.0.0.1:${other.port}/in`, AUTHORIZATION],
    [`/traces@127.0.0.1:${other.port}/in`, AUTHORIZATION],
  ]);
});
