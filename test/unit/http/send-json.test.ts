import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson } from '#src/http/send-json.ts';

const BODIES: Record<string, unknown> = {
  small: { type: 'message', id: 'msg_1', content: [{ type: 'text', text: 'Hello' }] },
  // Over 1,000 characters express turns the string into a Buffer first; non-ASCII text makes bytes differ from characters.
  large: { type: 'message', content: [{ type: 'text', text: `${'Grüße, 世界 🌍 '.repeat(200)}<&>` }] },
  array: [1, 'two', null, { three: true }],
};

let server: Server;
let port: number;
let hooked = 0;

/** The answer's bytes, its Date line removed. */
function send(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8').replace(/\r\nDate: [^\r]*/, '')));
    socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
  });
}

beforeAll(async () => {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.post('/express/:name', (req, res) => {
    res.setHeader('X-Before', 'yes');
    res.json(BODIES[req.params.name]);
  });
  app.post('/direct/:name', (req, res) => {
    res.setHeader('X-Before', 'yes');
    sendJson(res, BODIES[req.params.name]);
  });
  app.post('/hooked', (_req, res) => {
    res.setHeader('X-Before', 'yes');
    // What express-openapi-validator's response validation does to a response: its own `json`.
    const original = res.json;
    res.json = function validated(this: Response, body: unknown) {
      hooked += 1;
      res.json = original;
      return original.call(this, body);
    };
    sendJson(res, BODIES.small);
  });
  app.post('/typed/:how', (req, res) => {
    res.setHeader('Content-Type', 'application/vnd.api+json');
    res.status(201);
    if (req.params.how === 'direct') sendJson(res, BODIES.small);
    else res.json(BODIES.small);
  });
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('sendJson', () => {
  it.each(Object.keys(BODIES))('sends the bytes res.json sends (%s)', async (name) => {
    const direct = await send(`/direct/${name}`);
    expect(direct).toMatch(/^HTTP\/1\.1 200 OK\r\nX-Before: yes\r\nContent-Type: application\/json; charset=utf-8\r\nContent-Length: \d+\r\n/);
    expect(direct).toBe(await send(`/express/${name}`));
  });

  it('goes through a replaced res.json, so response validation sees the answer', async () => {
    const before = hooked;
    expect(await send('/hooked')).toBe(await send('/express/small'));
    expect(hooked).toBe(before + 1);
  });

  it('leaves a status or Content-Type already set to res.json', async () => {
    const direct = await send('/typed/direct');
    expect(direct).toMatch(/^HTTP\/1\.1 201 Created\r\nContent-Type: application\/vnd\.api\+json; charset=utf-8\r\n/);
    expect(direct).toBe(await send('/typed/express'));
  });
});
