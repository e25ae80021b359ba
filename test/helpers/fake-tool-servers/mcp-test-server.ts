/**
 * A real MCP server for tests, built with the official SDK (`McpServer` and `StreamableHTTPServerTransport`,
 * stateless, on node:http at 127.0.0.1). Its tools: `lookup_order` answers, `explode` throws, `slow` waits
 * until the test lets it finish (or the server is stopped under it), `report` returns only structured content.
 * It counts `tools/list` requests and records the headers of every request.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as z from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** A running MCP test server. */
export interface McpTestServer {
  /** The Streamable HTTP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  toolListCalls(): number;
  /** Names of the tools called, in order. */
  readonly toolCalls: string[];
  readonly headers: IncomingHttpHeaders[];
  /** Resolves once a call of `slow` has started. */
  slowStarted(): Promise<void>;
  /** Stops at once, cutting every open connection (a crash, as far as a client can tell). */
  close(): Promise<void>;
}

function buildServer(record: { toolCalls: string[]; onSlow: () => void }): McpServer {
  const server = new McpServer({ name: 'orders-test', version: '1.0.0' });
  server.registerTool(
    'lookup_order',
    { description: 'Looks up an order by its id.', inputSchema: { order_id: z.string().describe('The order id, e.g. A-1001') } },
    async ({ order_id }) => {
      record.toolCalls.push('lookup_order');
      return { content: [{ type: 'text', text: `Order ${order_id}: shipped on 2026-03-02, 2 items.` }] };
    },
  );
  server.registerTool('explode', { description: 'Always fails.', inputSchema: {} }, async () => {
    record.toolCalls.push('explode');
    throw new Error('the orders database is unreachable');
  });
  server.registerTool('slow', { description: 'Takes its time.', inputSchema: {} }, async () => {
    record.toolCalls.push('slow');
    record.onSlow();
    await new Promise((resolve) => setTimeout(resolve, 20_000));
    return { content: [{ type: 'text', text: 'finally' }] };
  });
  server.registerTool(
    'report',
    { description: 'Returns structured data only.', inputSchema: {}, outputSchema: { total: z.number() } },
    async () => {
      record.toolCalls.push('report');
      return { content: [], structuredContent: { total: 42 } };
    },
  );
  return server;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

function countListCalls(body: unknown): number {
  const messages = Array.isArray(body) ? body : [body];
  return messages.filter((message) => typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'tools/list').length;
}

/** Starts the server. */
export async function startMcpTestServer(): Promise<McpTestServer> {
  let listCalls = 0;
  const toolCalls: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const sockets = new Set<Socket>();
  let slowStarted!: () => void;
  const slow = new Promise<void>((resolve) => (slowStarted = resolve));
  const http = createServer((req, res) => {
    headers.push(req.headers);
    void (async () => {
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' }).end();
        return;
      }
      const body = await readJson(req);
      listCalls += countListCalls(body);
      // Stateless: a fresh server and transport per request, as the SDK documents for servers without sessions.
      const server = buildServer({ toolCalls, onSlow: () => slowStarted() });
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
  http.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    toolListCalls: () => listCalls,
    toolCalls,
    headers,
    slowStarted: () => slow,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
