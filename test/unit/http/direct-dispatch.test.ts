import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tracingChannel } from 'node:diagnostics_channel';
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDirectDispatch, type DirectStep } from '#src/http/direct-dispatch.ts';
import { expressMessageClasses } from '#src/http/express-messages.ts';

/** What each step saw, per request (by its `x-trace` header). */
const seen = new Map<string, string[]>();

function record(req: Request, step: string): void {
  const trace = req.headers['x-trace'] as string;
  const lines = seen.get(trace) ?? [];
  const shape = `${typeof req.next}|${req.res?.req === req}|${Object.getPrototypeOf(req.res?.locals) === null}|${JSON.stringify(req.params)}`;
  lines.push(`${step} url=${req.url} baseUrl=${req.baseUrl} originalUrl=${req.originalUrl} path=${req.path} ${shape}`);
  seen.set(trace, lines);
}

/** An application shaped like src/app.ts, each step telling what it sees; `x-scenario` picks a failure. */
function buildApp(): { server: Server } {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const steps: DirectStep[] = [];
  const mounted: RequestHandler = (req, res, next) => {
    record(req, 'mounted');
    res.locals.mark = 'set';
    next();
  };
  const plain: RequestHandler = (req, _res, next) => {
    record(req, 'plain');
    if (req.headers['x-scenario'] === 'throw') throw new Error('thrown by a step');
    if (req.headers['x-scenario'] === 'next-error') {
      next(new Error('passed by a step'));
      return;
    }
    setImmediate(next);
  };
  const handler: RequestHandler = async (req, res, next) => {
    record(req, 'handler');
    await Promise.resolve();
    switch (req.headers['x-scenario']) {
      case 'reject':
        throw undefined;
      case 'next':
        next();
        return;
      case 'after-headers':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
        next(new Error('after the headers'));
        return;
      default:
        res.json({ mark: res.locals.mark });
    }
  };
  const notFound: RequestHandler = (req, _res, next) => {
    record(req, 'notFound');
    next(new Error('not found'));
  };
  const errorHandler: ErrorRequestHandler = (error: Error | undefined, req, res, next) => {
    record(req, `error(${String(error?.message)})`);
    if (res.headersSent) {
      next(error);
      return;
    }
    res.status(500).json({ error: String(error?.message), mark: res.locals.mark });
  };
  app.use('/api/v1/messages', mounted);
  steps.push({ handle: mounted, mountPath: '/api/v1/messages' });
  app.use(plain);
  steps.push({ handle: plain });
  const router = express.Router();
  router.get('/health', (_req, res) => void res.json({ ok: true }));
  router.post('/messages', handler);
  router.post('/other', (_req, res) => void res.json({ other: true }));
  app.use('/api/v1', router);
  steps.push({ handle: handler, mountPath: '/api/v1' });
  app.use(notFound);
  steps.push({ handle: notFound });
  app.use(errorHandler);
  const listener = createDirectDispatch(app, { method: 'POST', url: '/api/v1/messages', steps, errorHandler });
  return { server: createServer(expressMessageClasses(app), listener) };
}

let server: Server;
let port: number;
let traces = 0;

/** Sends a request; the answer's bytes (Date removed, or `<cut>` when the connection was destroyed) and what the steps saw. */
function send(method: string, path: string, scenario = 'ok'): Promise<{ answer: string; saw: string[] }> {
  const trace = String((traces += 1));
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let reset = false;
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => (reset = true));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8').replace(/\r\nDate: [^\r]*/, '');
      const ended = text.endsWith('\r\n0\r\n\r\n') || !/transfer-encoding: chunked/i.test(text);
      resolve({ answer: ended && !reset ? text : `${text}<cut>`, saw: seen.get(trace) ?? [] });
    });
    socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Trace: ${trace}\r\nX-Scenario: ${scenario}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
  });
}

const tracing = tracingChannel('express.router.request');
const noop = (): void => undefined;
const subscriber = { start: noop, end: noop, asyncStart: noop, asyncEnd: noop, error: noop };

/** The request directly, then through express (a tracing subscriber sends everything there). */
async function bothWays(method: string, path: string, scenario?: string): Promise<[Awaited<ReturnType<typeof send>>, Awaited<ReturnType<typeof send>>]> {
  const direct = await send(method, path, scenario);
  tracing.subscribe(subscriber);
  try {
    return [direct, await send(method, path, scenario)];
  } finally {
    tracing.unsubscribe(subscriber);
  }
}

beforeAll(async () => {
  ({ server } = buildApp());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('direct dispatch', () => {
  it.each([
    ['ok', '/api/v1/messages'],
    ['ok', '/api/v1/messages?beta=true'],
    ['throw', '/api/v1/messages'],
    ['next-error', '/api/v1/messages?beta=true'],
    ['reject', '/api/v1/messages'],
    ['next', '/api/v1/messages?beta=true'],
    ['after-headers', '/api/v1/messages'],
  ])('runs each step as express would: %s on %s', async (scenario, path) => {
    const [direct, viaExpress] = await bothWays('POST', path, scenario);
    expect(direct.saw.length).toBeGreaterThan(1);
    expect(direct.saw).toEqual(viaExpress.saw);
    expect(direct.answer).toBe(viaExpress.answer);
  });

  it('presents each step the URL express presents, and the error middleware the original one', async () => {
    const { saw } = await send('POST', '/api/v1/messages?beta=true', 'next');
    expect(saw.map((line) => line.split(' path=')[0])).toEqual([
      'mounted url=/?beta=true baseUrl=/api/v1/messages originalUrl=/api/v1/messages?beta=true',
      'plain url=/api/v1/messages?beta=true baseUrl= originalUrl=/api/v1/messages?beta=true',
      'handler url=/messages?beta=true baseUrl=/api/v1 originalUrl=/api/v1/messages?beta=true',
      'notFound url=/api/v1/messages?beta=true baseUrl= originalUrl=/api/v1/messages?beta=true',
      'error(not found) url=/api/v1/messages?beta=true baseUrl= originalUrl=/api/v1/messages?beta=true',
    ]);
  });

  it('leaves every other request to express', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/health'],
      ['POST', '/api/v1/other'],
      ['POST', '/api/v1/messages/'],
      ['POST', '/api/v1/MESSAGES'],
      ['PUT', '/api/v1/messages'],
    ] as const) {
      const [direct, viaExpress] = await bothWays(method, path);
      expect(direct).toEqual(viaExpress);
    }
  });
});
