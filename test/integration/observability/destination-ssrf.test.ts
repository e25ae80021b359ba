/**
 * The SSRF guard of broadcast destinations, over HTTP. Without `SWITCHBOARD_ALLOW_PRIVATE_DESTINATIONS`,
 * `POST` and `PATCH /observability/destinations` refuse an endpoint on a loopback, private, link-local or
 * metadata address (or `localhost`) with a 400 naming the reason; a host name is judged on every connection,
 * so a name that resolves to 127.0.0.1 (DNS rebinding) is accepted when stored but never reached: webhook and
 * OTLP deliveries to it fail and are counted, and the receiver on 127.0.0.1 gets nothing. A gateway that
 * allows 127.0.0.1 explicitly delivers to the same name. Names resolve through a map given to the gateway,
 * never through DNS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookupAddress } from 'node:dns';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { callApi } from '#test/helpers/management-api.ts';
import type { LookupAll } from '#src/server-tools/web-fetch/guarded-dispatcher.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';
import { reply } from '#test/helpers/fake-upstreams/index.ts';

const REBOUND = 'collector.rebind.test';
const resolveHost: LookupAll = (hostname, callback) => {
  if (hostname === REBOUND) return callback(null, [{ address: '127.0.0.1', family: 4 } satisfies LookupAddress]);
  return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
};
const GUARDED_ENV = { SWITCHBOARD_ALLOW_PRIVATE_DESTINATIONS: '', SWITCHBOARD_BROADCAST_RETRY_MS: '10', SWITCHBOARD_BROADCAST_TIMEOUT_MS: '2000' };
const SIGNING_SECRET = 'whsec_ssrf_test_0000000001';

async function answerOne(setup: RecordsGateway): Promise<void> {
  setup.alpha.enqueue(reply.fixture('anthropic-text'));
  const response = await fetch(`${setup.gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${setup.gateway.api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'test/primary', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }], provider: { order: ['alpha'] } }),
  });
  expect(response.status).toBe(200);
  await response.text();
}

async function droppedFailed(setup: RecordsGateway, kind: string): Promise<number> {
  const text = await (await fetch(`${setup.gateway.baseUrl}/metrics`, { headers: { authorization: `Bearer ${setup.gateway.management_key}` } })).text();
  const match = new RegExp(`switchboard_broadcast_dropped_total\\{kind="${kind}",reason="failed"\\} (\\d+)`).exec(text);
  return match ? Number(match[1]) : 0;
}

describe('broadcast destinations on non-public addresses', () => {
  let receiver: CaptureServer;
  let port: string;

  beforeAll(async () => {
    receiver = await startCaptureServer({ status: 200, body: {} });
    port = new URL(receiver.url).port;
  });
  afterAll(() => receiver?.close());

  describe('without SWITCHBOARD_ALLOW_PRIVATE_DESTINATIONS', () => {
    let setup: RecordsGateway;
    beforeAll(async () => {
      setup = await startRecordsGateway({ env: GUARDED_ENV, resolveHost });
    });
    afterAll(() => setup?.close());

    const create = (body: Record<string, unknown>) => callApi(setup.gateway.baseUrl, 'POST', '/observability/destinations', { key: setup.gateway.management_key, body });

    it.each([
      ['otlp', 'http://127.0.0.1:4318/v1/traces', 'endpoint 127.0.0.1 is a loopback address'],
      ['otlp', 'http://[::1]:4318/v1/traces', 'endpoint ::1 is a loopback address'],
      ['otlp', 'http://[::ffff:127.0.0.1]:4318/v1/traces', 'endpoint ::ffff:7f00:1 is a loopback address'],
      ['webhook', 'http://10.1.2.3/hook', 'endpoint 10.1.2.3 is a private address'],
      ['webhook', 'http://169.254.169.254/latest/meta-data', 'endpoint 169.254.169.254 is a cloud metadata address'],
      ['webhook', 'https://[fe80::1]/hook', 'endpoint fe80::1 is a link-local address'],
      ['langfuse', 'http://localhost:3000', 'endpoint localhost is a loopback host name'],
    ])('refuses a %s destination at %s with a 400 naming the reason', async (kind, endpoint, reason) => {
      const secrets = kind === 'webhook' ? { signing_secret: SIGNING_SECRET } : kind === 'langfuse' ? { public_key: 'pk-lf-1', secret_key: 'sk-lf-0000000001' } : {};
      const created = await create({ name: 'internal', kind, endpoint, ...secrets });
      expect(created).toEqual({
        status: 400,
        body: { error: { code: 400, message: `Invalid request parameters: ${reason}; destinations on non-public addresses need SWITCHBOARD_ALLOW_PRIVATE_DESTINATIONS on the gateway` } },
      });
    });

    it('refuses a PATCH onto a loopback address, and never connects to a name that resolves to one', async () => {
      const hook = await create({ name: 'rebound hook', kind: 'webhook', endpoint: `http://${REBOUND}:${port}/hook`, signing_secret: SIGNING_SECRET });
      expect(hook.status, JSON.stringify(hook.body)).toBe(201);
      const otlp = await create({ name: 'rebound collector', kind: 'otlp', endpoint: `http://${REBOUND}:${port}/v1/traces` });
      expect(otlp.status, JSON.stringify(otlp.body)).toBe(201);
      const id = (hook.body as { data: { id: string } }).data.id;
      const patched = await callApi(setup.gateway.baseUrl, 'PATCH', `/observability/destinations/${id}`, { key: setup.gateway.management_key, body: { endpoint: `http://127.0.0.1:${port}/hook` } });
      expect(patched.status).toBe(400);
      expect(patched.body.error.message).toContain('endpoint 127.0.0.1 is a loopback address');

      await answerOne(setup);
      const deadline = Date.now() + 15_000;
      while ((await droppedFailed(setup, 'webhook')) < 1 || (await droppedFailed(setup, 'otlp')) < 1) {
        if (Date.now() > deadline) throw new Error('the refused deliveries were not counted');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(receiver.requests).toHaveLength(0);
      expect(setup.gateway.logs.join('\n')).toContain(`${REBOUND} resolves to 127.0.0.1, a loopback address`);
    });
  });

  describe('with SWITCHBOARD_ALLOW_PRIVATE_DESTINATIONS=127.0.0.1 (the control)', () => {
    let setup: RecordsGateway;
    beforeAll(async () => {
      setup = await startRecordsGateway({ env: { ...GUARDED_ENV, SWITCHBOARD_ALLOW_PRIVATE_DESTINATIONS: '127.0.0.1' }, resolveHost });
    });
    afterAll(() => setup?.close());

    it('accepts the address it allows and delivers to the name that resolves to it, and still refuses others', async () => {
      const before = receiver.requests.length;
      const hook = await callApi(setup.gateway.baseUrl, 'POST', '/observability/destinations', {
        key: setup.gateway.management_key,
        body: { name: 'rebound hook', kind: 'webhook', endpoint: `http://${REBOUND}:${port}/allowed`, signing_secret: SIGNING_SECRET },
      });
      expect(hook.status).toBe(201);
      const literal = await callApi(setup.gateway.baseUrl, 'POST', '/observability/destinations', {
        key: setup.gateway.management_key,
        body: { name: 'literal', kind: 'otlp', endpoint: `http://127.0.0.1:${port}/v1/traces` },
      });
      expect(literal.status).toBe(201);
      const other = await callApi(setup.gateway.baseUrl, 'POST', '/observability/destinations', {
        key: setup.gateway.management_key,
        body: { name: 'other', kind: 'otlp', endpoint: 'http://10.0.0.7:4318/v1/traces' },
      });
      expect(other.status).toBe(400);
      await answerOne(setup);
      const received = await receiver.waitFor(before + 2);
      expect(received.slice(before).map((request) => request.path).sort()).toEqual(['/allowed', '/v1/traces']);
    });
  });
});
