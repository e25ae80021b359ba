/**
 * The direct JSON body reader against express.json: the same bodies give the same `req.body`, or failures
 * of the same type and status, over real HTTP on 127.0.0.1 (one path read directly, one through express.json).
 */
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { createServer } from '#src/http/node-http.ts';
import { createJsonBodyParser, parseStrictJson } from '#src/http/json-body.ts';

let server: Server;
let origin: string;
let directReads = 0;

beforeAll(async () => {
  const app = express();
  app.use((req, _res, next) => {
    if (req.url === '/direct') directReads += 1;
    next();
  });
  app.use(createJsonBodyParser({ limitBytes: 1_000_000, url: '/direct' }));
  app.post(['/direct', '/fallback'], (req, res) => {
    res.json({ body: req.body as unknown });
  });
  const renderError: ErrorRequestHandler = (error: { type?: string; status?: number; expose?: boolean }, _req, res, _next) => {
    res.status(299).json({ type: error.type, status: error.status, expose: error.expose });
  };
  app.use(renderError);
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function send(path: string, body: Buffer, contentType = 'application/json'): Promise<{ status: number; text: string }> {
  const response = await fetch(`${origin}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: response.status, text: await response.text() };
}

const BODIES: [string, Buffer][] = [
  ['an object', Buffer.from('{"model":"m","messages":[{"role":"user","content":"héllo ✓"}]}')],
  ['an array', Buffer.from('[1,2]')],
  ['leading whitespace', Buffer.from(' \n\t{"a":1}')],
  ['a byte-order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')])],
  ['only a byte-order mark', Buffer.from([0xef, 0xbb, 0xbf])],
  ['invalid UTF-8 inside a string', Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])],
  ['a string literal', Buffer.from('"hello"')],
  ['a number', Buffer.from('42')],
  ['only whitespace', Buffer.from('   ')],
  ['truncated JSON', Buffer.from('{"a":')],
  ['trailing garbage', Buffer.from('{"a":1} x')],
  ['a large object', Buffer.from(JSON.stringify({ text: 'x'.repeat(200_000) }))],
];

describe('the direct JSON body reader', () => {
  it.each(BODIES)('reads %s as express.json does', async (_name, body) => {
    const before = directReads;
    const [direct, fallback] = await Promise.all([send('/direct', body), send('/fallback', body)]);
    expect(directReads).toBe(before + 1);
    expect(direct).toEqual(fallback);
  });

  it('leaves a Content-Type with parameters to express.json, with the same outcome', async () => {
    const body = Buffer.from('{"a":1}');
    expect(await send('/direct', body, 'application/json; charset=utf-16')).toEqual(await send('/fallback', body, 'application/json; charset=utf-16'));
    expect(await send('/direct', body, 'application/json; charset=utf-8')).toEqual({ status: 200, text: '{"body":{"a":1}}' });
  });

  it.each<[string, unknown]>([
    ['', {}],
    ['{"a":[1]}', { a: [1] }],
    ['\r\n[]', []],
  ])('parses %j strictly', (text, parsed) => {
    expect(parseStrictJson(text)).toEqual(parsed);
  });

  it.each(['"a"', 'null', 'true', ' ', '{'])('refuses %j as the body parser does', (text) => {
    expect(() => parseStrictJson(text)).toThrow(expect.objectContaining({ type: 'entity.parse.failed', status: 400, expose: true }) as Error);
  });
});
