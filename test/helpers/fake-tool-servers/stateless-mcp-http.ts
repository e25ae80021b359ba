/**
 * The HTTP side of the stateless MCP test servers (the official SDK's Streamable HTTP transport on node:http at
 * 127.0.0.1): POST only, a fresh SDK server and transport per request as the SDK documents for servers without
 * sessions, and a hook that may answer a request itself first (an HTTP-level refusal).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** A running stateless MCP endpoint. */
export interface StatelessMcpHttp {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  close(): Promise<void>;
}

/** Answers a request itself (true) or leaves it to the MCP server (false). */
export type McpIntercept = (req: IncomingMessage, res: ServerResponse, body: unknown) => boolean;

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/** Serves `build()`'s server over stateless Streamable HTTP, `intercept` first. */
export async function serveStatelessMcp(build: () => Server, intercept: McpIntercept = () => false): Promise<StatelessMcpHttp> {
  const http = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' }).end();
        return;
      }
      const body = await readJson(req);
      if (intercept(req, res, body)) return;
      const server = build();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
