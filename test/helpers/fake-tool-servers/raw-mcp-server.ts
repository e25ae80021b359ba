/**
 * An MCP server for tests whose tool list is given as raw JSON, as servers written with other SDKs (Python's,
 * Go's, Rust's) send it: built on the official SDK's low-level `Server` (no zod, so `inputSchema` goes out
 * exactly as given, e.g. a bare `{"type": "object"}` for a tool without arguments), stateless over Streamable
 * HTTP on 127.0.0.1. Every call answers `<tool> done`, unless `refuseCalls` makes it answer `tools/call` with a
 * 401 whose body quotes the bearer token it was sent, as some servers' and proxies' error pages do.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { serveStatelessMcp } from './stateless-mcp-http.ts';

/** A running raw MCP server. */
export interface RawMcpServer {
  /** The Streamable HTTP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** Names of the tools called, in order. */
  readonly toolCalls: string[];
  close(): Promise<void>;
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
  const http = await serveStatelessMcp(
    () => buildServer(tools, toolCalls),
    (req, res, body) => {
      if (!options.refuseCalls || !isToolCall(body)) return false;
      const token = String(req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
      const refusal = { error: 'invalid_token', error_description: `The access token ${token} has been revoked.` };
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' }).end(JSON.stringify(refusal));
      return true;
    },
  );
  return { url: http.url, toolCalls, close: () => http.close() };
}
