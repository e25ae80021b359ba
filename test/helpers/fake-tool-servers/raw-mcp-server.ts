/**
 * An MCP server for tests whose tool list is given as raw JSON, as servers written with other SDKs (Python's,
 * Go's, Rust's) send it: built on the official SDK's low-level `Server` (no zod, so `inputSchema` goes out
 * exactly as given, e.g. a bare `{"type": "object"}` for a tool without arguments), stateless over Streamable
 * HTTP on 127.0.0.1. Every call answers `<tool> done`, unless `refuseCalls` makes it answer `tools/call` with a
 * 401 whose body quotes the bearer token it was sent, as some servers' and proxies' error pages do.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';

/** A running raw MCP server. */
export interface RawMcpServer {
  /** The Streamable HTTP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** Names of the tools called, in order. */
  readonly toolCalls: string[];
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

function buildServer(tools: readonly Tool[], toolCalls: string[]): Server {
  const server = new Server({ name: 'raw-test', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools] }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    toolCalls.push(request.params.name);
    return { content: [{ type: 'text', text: `${request.params.name} done` }] };
  });
  return server;
}

/** Options of the raw server. */
export interface RawMcpServerOptions {
  /** Answer every `tools/call` with a 401 quoting the request's bearer token. */
  refuseCalls?: boolean;
}

function isToolCall(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'tools/call';
}

/** Starts the server with this tool list. */
export async function startRawMcpServer(tools: readonly Tool[], options: RawMcpServerOptions = {}): Promise<RawMcpServer> {
  const toolCalls: string[] = [];
  const http = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST') {
        res.writeHead(405, { allow: 'POST' }).end();
        return;
      }
      const body = await readJson(req);
      if (options.refuseCalls && isToolCall(body)) {
        const token = String(req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
        const refusal = { error: 'invalid_token', error_description: `The access token ${token} has been revoked.` };
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' }).end(JSON.stringify(refusal));
        return;
      }
      const server = buildServer(tools, toolCalls);
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
    toolCalls,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
