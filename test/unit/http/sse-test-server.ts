import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';

/** A tiny express app on 127.0.0.1 with one GET route, for driving the SSE helpers over a real socket. */
export interface SseTestServer {
  url: string;
  close(): Promise<void>;
}

/** Starts an app whose `GET /` runs `handle`; errors of the handler fail the test through `failures`. */
export async function startSseTestServer(handle: (req: Request, res: Response) => Promise<void>, failures: unknown[] = []): Promise<SseTestServer> {
  const app = express();
  app.get('/', (req, res) => {
    handle(req, res).catch((error: unknown) => failures.push(error));
  });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
