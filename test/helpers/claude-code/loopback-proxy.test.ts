/**
 * The loopback proxy as a client with `HTTP_PROXY` uses it: a plain-HTTP request in absolute form to the
 * allowed origin is forwarded and recorded with its answer's status; one to any other origin (another port
 * on 127.0.0.1 included) and any `CONNECT` tunnel are refused and recorded as escapes.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startLoopbackProxy, type LoopbackProxy } from './loopback-proxy.ts';

let allowed: FakeUpstream;
let other: FakeUpstream;
let proxy: LoopbackProxy;

beforeAll(async () => {
  [allowed, other] = await Promise.all([startFakeAnthropic(), startFakeAnthropic()]);
  proxy = await startLoopbackProxy({ allowedOrigin: allowed.url });
});
afterAll(async () => {
  await proxy?.close();
  await Promise.all([allowed?.close(), other?.close()]);
});
beforeEach(() => {
  proxy.clear();
  allowed.clear();
  other.clear();
});

/** Sends `body` to `url` through the proxy, as an HTTP client configured with HTTP_PROXY does. */
function viaProxy(url: string, body: string): Promise<{ status: number; text: string }> {
  const target = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: target.hostname, port: target.port, method: 'POST', path: url, headers: { 'content-type': 'application/json', 'x-api-key': 'sk-test' } }, (answer) => {
      let text = '';
      answer.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, text }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Opens a CONNECT tunnel request through the proxy and returns the status line it answers. */
function tunnel(authority: string): Promise<string> {
  const target = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname, () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nhost: ${authority}\r\n\r\n`));
    let text = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve(text.split('\r\n')[0] ?? ''));
    socket.on('error', reject);
  });
}

describe('loopback proxy', () => {
  it('forwards a request to the allowed origin unchanged and records it with its status', async () => {
    allowed.enqueue(reply.json({ ok: true }));
    const body = JSON.stringify({ model: 'claude-x', messages: [] });
    const answer = await viaProxy(`${allowed.url}/v1/messages?beta=true`, body);

    expect(answer).toEqual({ status: 200, text: JSON.stringify({ ok: true }) });
    expect(allowed.lastRequest()).toMatchObject({ path: '/v1/messages', query: { beta: 'true' }, rawBody: body });
    expect(allowed.lastRequest().headers['x-api-key']).toBe('sk-test');
    expect(proxy.forwarded).toMatchObject([{ method: 'POST', path: '/v1/messages?beta=true', body: JSON.parse(body), status: 200 }]);
    expect(proxy.escapes).toEqual([]);
  });

  it('refuses another origin, even on 127.0.0.1, and records it', async () => {
    const answer = await viaProxy(`${other.url}/v1/messages`, '{}');

    expect(answer.status).toBe(403);
    expect(other.requests).toEqual([]);
    expect(proxy.forwarded).toEqual([]);
    expect(proxy.escapes).toEqual([`POST ${other.url}/v1/messages`]);
  });

  it('refuses a CONNECT tunnel and records its destination', async () => {
    expect(await tunnel('api.anthropic.com:443')).toBe('HTTP/1.1 403 Forbidden');
    expect(proxy.escapes).toEqual(['CONNECT api.anthropic.com:443']);
  });
});
