/**
 * A real MCP server for tests, built with the official SDK (`McpServer` and `StreamableHTTPServerTransport`,
 * stateless, on node:http at 127.0.0.1). Its tools: `lookup_order` answers, `explode` throws, `slow` waits
 * until the test lets it finish (or the server is stopped under it), `report` returns only structured content,
 * `wait` answers after the `ms` it is given.
 * It counts `tools/list` requests and records the headers of every request. Stateless by default; with
 * `sessions: true` it keeps a session per `initialize` (`Mcp-Session-Id`), answers an unknown session 404 as the
 * SDK's examples and the MCP spec do, and can forget every session (a restart, as far as a client can tell).
 * A tool added while it runs is listed from then on; each open session hears `notifications/tools/list_changed`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import * as z from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

/** A running MCP test server. */
export interface McpTestServer {
  /** The Streamable HTTP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  toolListCalls(): number;
  /** Names of the tools called, in order. */
  readonly toolCalls: string[];
  readonly headers: IncomingHttpHeaders[];
  /** Sessions open now (`sessions: true`). */
  sessionCount(): number;
  /** Sessions ever opened by an `initialize` (`sessions: true`). */
  sessionsOpened(): number;
  /** Forgets every session, as a restarted server does: their next request is answered 404. */
  forgetSessions(): Promise<void>;
  /** Adds a tool answering `<name> done` to every session, open or to come; open ones are told the list changed. */
  addTool(name: string): void;
  /** Resolves once a call of `slow` has started. */
  slowStarted(): Promise<void>;
  /** Cuts every open connection (calls under way fail on the client's side) and goes on listening. */
  cutConnections(): void;
  /** Stops at once, cutting every open connection (a crash, as far as a client can tell). */
  close(): Promise<void>;
}

function registerAdded(server: McpServer, name: string, toolCalls: string[]): void {
  server.registerTool(name, { description: `The added tool ${name}.`, inputSchema: {} }, async () => {
    toolCalls.push(name);
    return { content: [{ type: 'text', text: `${name} done` }] };
  });
}

function buildServer(record: { toolCalls: string[]; onSlow: () => void; added: string[] }): McpServer {
  const server = new McpServer({ name: 'orders-test', version: '1.0.0' });
  for (const name of record.added) registerAdded(server, name, record.toolCalls);
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
  server.registerTool('wait', { description: 'Answers after a while.', inputSchema: { ms: z.number().describe('How long to wait') } }, async ({ ms }) => {
    record.toolCalls.push('wait');
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
  });
  // Its calls never reach here: the HTTP handler cuts their connection (a transport failure of that call alone).
  server.registerTool('cut', { description: 'Its connection is cut.', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'not cut' }] }));
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

function callsTool(body: unknown, name: string): boolean {
  const message = body as { method?: unknown; params?: { name?: unknown } } | undefined;
  return message?.method === 'tools/call' && message.params?.name === name;
}

/** Options of the test server. */
export interface McpTestServerOptions {
  /** Keep a session per client (`Mcp-Session-Id`), as most deployed servers do; stateless when false. */
  sessions?: boolean;
}

const SESSION_NOT_FOUND = JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });

/** Starts the server. */
export async function startMcpTestServer(options: McpTestServerOptions = {}): Promise<McpTestServer> {
  let listCalls = 0;
  let opened = 0;
  const toolCalls: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const sockets = new Set<Socket>();
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: McpServer }>();
  let slowStarted!: () => void;
  const slow = new Promise<void>((resolve) => (slowStarted = resolve));
  const record = { toolCalls, onSlow: () => slowStarted(), added: [] as string[] };

  async function stateless(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    // A fresh server and transport per request, as the SDK documents for servers without sessions.
    const server = buildServer(record);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function withSessions(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const id = req.headers['mcp-session-id'];
    const session = typeof id === 'string' ? sessions.get(id) : undefined;
    if (session) return session.transport.handleRequest(req, res, body);
    if (typeof id === 'string') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(SESSION_NOT_FOUND);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null }));
      return;
    }
    const server = buildServer(record);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        opened += 1;
        sessions.set(sessionId, { transport, server });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const http = createServer((req, res) => {
    headers.push(req.headers);
    void (async () => {
      if (req.method !== 'POST' && !options.sessions) {
        res.writeHead(405, { allow: 'POST' }).end();
        return;
      }
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      listCalls += countListCalls(body);
      if (callsTool(body, 'cut')) {
        toolCalls.push('cut');
        req.socket.destroy();
        return;
      }
      await (options.sessions ? withSessions(req, res, body) : stateless(req, res, body));
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
    addTool: (name) => {
      record.added.push(name);
      // Registering on a connected server sends notifications/tools/list_changed to its client.
      for (const { server } of sessions.values()) registerAdded(server, name, toolCalls);
    },
    sessionCount: () => sessions.size,
    sessionsOpened: () => opened,
    forgetSessions: async () => {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map(async ({ transport, server }) => {
        await transport.close();
        await server.close();
      }));
    },
    slowStarted: () => slow,
    cutConnections: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
