import { IncomingMessage, ServerResponse, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { expressMessageClasses } from '#src/http/express-messages.ts';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

describe('express message classes', () => {
  it('builds requests and responses that already have the express prototypes, so app.handle changes no prototype', async () => {
    const app = express();
    const seen: { requestProto?: unknown; responseProto?: unknown; nodeRequest?: boolean; nodeResponse?: boolean } = {};
    app.get('/probe', (req, res) => {
      res.status(201).json({ path: req.path, header: req.get('x-probe') });
    });
    server = createServer(expressMessageClasses(app), (req, res) => {
      // Before express sees them: what node built.
      seen.requestProto = Object.getPrototypeOf(req);
      seen.responseProto = Object.getPrototypeOf(res);
      seen.nodeRequest = req instanceof IncomingMessage;
      seen.nodeResponse = res instanceof ServerResponse;
      app(req, res);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/probe?x=1`, { headers: { 'x-probe': 'yes' } });
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ path: '/probe', header: 'yes' });
    expect(seen.requestProto).toBe(app.request);
    expect(seen.responseProto).toBe(app.response);
    expect(seen.nodeRequest).toBe(true);
    expect(seen.nodeResponse).toBe(true);
  });
});
