/**
 * A receiver on 127.0.0.1 standing in for a broadcast destination (an OTLP collector, Langfuse, a webhook):
 * it records every request (method, path, headers, raw body) and answers as told: a status, or never (hang),
 * which is how a slow or dead destination is simulated. `waitFor` resolves once enough requests arrived.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface CapturedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  receivedAt: number;
}

/**
 * How the receiver answers: a status (with an optional JSON body and headers, `delayMs` after the request
 * arrived: a slow collector), or `hang` (never).
 */
export type CaptureBehaviour = { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number } | 'hang';

/** A running receiver. */
export interface CaptureServer {
  url: string;
  requests: CapturedRequest[];
  behaviour: CaptureBehaviour;
  /** One-off answers, used in order before `behaviour` (a 503 with `Retry-After`, then the usual answer). */
  answers: CaptureBehaviour[];
  /** Resolves with the requests once at least `count` arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<CapturedRequest[]>;
  close(): Promise<void>;
}

/** Starts a receiver answering 200 until told otherwise. */
export async function startCaptureServer(behaviour: CaptureBehaviour = { status: 200 }): Promise<CaptureServer> {
  const hanging = new Set<ServerResponse>();
  const capture: CaptureServer = {
    url: '',
    requests: [],
    behaviour,
    answers: [],
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (capture.requests.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} requests at ${capture.url}, got ${capture.requests.length}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return capture.requests;
    },
    close: async () => {},
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      capture.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), receivedAt: Date.now() });
      const answer = capture.answers.shift() ?? capture.behaviour;
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      const body = answer.body === undefined ? '' : JSON.stringify(answer.body);
      const send = () => res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(body);
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  capture.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  capture.close = () =>
    new Promise<void>((resolve) => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return capture;
}
