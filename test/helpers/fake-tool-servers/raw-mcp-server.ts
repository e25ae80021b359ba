/**
 * An MCP server for tests whose tool list is given as raw JSON, as servers written with other SDKs (Python's,
 * Go's, Rust's) send it: built on the official SDK's low-level `Server` (no zod, so `inputSchema` goes out
 * exactly as given, e.g. a bare `{"type": "object"}` for a tool without arguments), stateless over Streamable
 * HTTP on 127.0.0.1. Every call answers `<tool> done`, unless `refuseCalls` makes it answer `tools/call` with a
 * 401 whose body quotes the bearer token it was sent, as some servers' and proxies' error pages do, or
 * `rpcErrors` names the tool: its calls are answered with a JSON-RPC "invalid params" error.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { serveStatelessMcp } from './stateless-mcp-http.ts';

/** A running raw MCP server. */
export interface RawMcpServer {
  /** The Streamable HTTP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** Names of the tools called, in order. */
  readonly toolCalls: string[];
  close(): Promise<void>;
}

/**
 * How a JSON-RPC error is worded: `sdk` as the official TypeScript SDK's servers send a thrown `McpError`
 * (its message, "MCP error -32602: …", goes out whole), `bare` with the text alone.
 */
export type RpcErrorWording = 'sdk' | 'bare';

/** The text of every JSON-RPC error the raw server answers, after any prefix. */
export const RPC_ERROR_TEXT = 'order_id must look like A-1001';

function rpcError(wording: RpcErrorWording): Error {
  if (wording === 'sdk') return new McpError(ErrorCode.InvalidParams, RPC_ERROR_TEXT);
  // The SDK's server sends a thrown error's numeric `code` and its message as they are.
  return Object.assign(new Error(RPC_ERROR_TEXT), { code: ErrorCode.InvalidParams });
}

function buildServer(tools: readonly Tool[], toolCalls: string[], rpcErrors: Readonly<Record<string, RpcErrorWording>>): Server {
  const server = new Server({ name: 'raw-test', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools] }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    toolCalls.push(request.params.name);
    const wording = rpcErrors[request.params.name];
    if (wording) throw rpcError(wording);
    return { content: [{ type: 'text', text: `${request.params.name} done` }] };
  });
  return server;
}

/** Options of the raw server. */
export interface RawMcpServerOptions {
  /** Answer every `tools/call` with a 401 quoting the request's bearer token. */
  refuseCalls?: boolean;
  /** Tools whose calls are answered with a JSON-RPC "invalid params" error, worded so. */
  rpcErrors?: Readonly<Record<string, RpcErrorWording>>;
}

function isToolCall(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'tools/call';
}

/** Starts the server with this tool list. */
export async function startRawMcpServer(tools: readonly Tool[], options: RawMcpServerOptions = {}): Promise<RawMcpServer> {
  const toolCalls: string[] = [];
  const http = await serveStatelessMcp(
    () => buildServer(tools, toolCalls, options.rpcErrors ?? {}),
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
