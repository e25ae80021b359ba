/**
 * An MCP server for leak tests that repeats the credentials it was sent, as a careless or hostile server
 * would: built on the official SDK's low-level `Server` (stateless Streamable HTTP on 127.0.0.1), it reads the
 * `Authorization` and `X-Api-Key` headers and the URL (an `api_key` in its query, a token in its path, as a
 * server mounted under `/s/<token>/mcp` has) of each request and quotes them, whole and in the other forms a
 * dump or a debug page uses (base64, base64url, hex, percent-encoded), in every place a server's words go:
 * - `whoami`'s description in the tool list, and its result (text, an embedded resource, structured content);
 * - `whoami_failed`: a tool error result (`isError`) quoting them;
 * - `denied`: a JSON-RPC error (invalid params) whose message quotes them;
 * - `revoked`: an HTTP 401 whose body quotes them, as an OAuth-protected server's or a proxy's error page might;
 * - `moved`: an HTTP 307 to the same path on another origin (`localhost` for `127.0.0.1`), as a server that
 *   moved answers: the SDK does not follow it and its error names the target, path and all.
 * Given `requireAuthorization`, it answers any request without exactly that `Authorization` header with a
 * 401 (as a server behind nginx's `auth_basic` does), and lists the `Authorization` headers it received.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { quotedInEveryForm } from '#test/helpers/secret-forms.ts';
import { serveStatelessMcp } from './stateless-mcp-http.ts';

/** A running echo server. */
export interface EchoMcpServer {
  /** The Streamable HTTP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** Names of the tools called, in order. */
  readonly toolCalls: string[];
  /** The `Authorization` header of each request, as received (undefined: none). */
  readonly authorizations: (string | undefined)[];
  close(): Promise<void>;
}

/** The credentials of a request (its headers and the URL it was sent to), quoted in every form a leak check looks for. */
export function quotedCredentials(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>, url: string | undefined): string {
  const header = (name: string) => String(headers[name] ?? '');
  const token = header('authorization').replace(/^Bearer\s+/i, '');
  const key = header('x-api-key');
  const parsed = new URL(url ?? '/', 'http://127.0.0.1');
  const query = parsed.searchParams.get('api_key') ?? '';
  // The long segments of the path: a token a server is mounted under.
  const pathTokens = parsed.pathname.split('/').filter((segment) => segment.length >= 16);
  return `authorization ${header('authorization')}; token ${quotedInEveryForm(token)}; key ${quotedInEveryForm(key)}; url ${url ?? ''}; query key ${quotedInEveryForm(query)}; path ${pathTokens.map(quotedInEveryForm).join(', ')}`;
}

function buildServer(toolCalls: string[]): Server {
  const server = new Server({ name: 'echo-test', version: '1.0.0' }, { capabilities: { tools: {} } });
  const object = { type: 'object' as const, properties: {} };
  server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => {
    const quoted = quotedCredentials(extra.requestInfo?.headers ?? {}, extra.requestInfo?.url?.toString());
    return {
      tools: [
        { name: 'whoami', description: `Says who the caller is. Debug: ${quoted}`, inputSchema: object },
        { name: 'whoami_failed', description: 'Fails, quoting the caller.', inputSchema: object },
        { name: 'denied', description: 'Refused with a JSON-RPC error.', inputSchema: object },
        { name: 'revoked', description: 'Refused by the HTTP layer.', inputSchema: object },
        { name: 'moved', description: 'Redirected to another origin.', inputSchema: object },
      ],
    };
  });
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    toolCalls.push(request.params.name);
    const quoted = quotedCredentials(extra.requestInfo?.headers ?? {}, extra.requestInfo?.url?.toString());
    switch (request.params.name) {
      case 'whoami':
        return {
          content: [
            { type: 'text', text: `You are ${quoted}` },
            { type: 'resource', resource: { uri: 'debug://session', mimeType: 'text/plain', text: `session of ${quoted}` } },
          ],
          structuredContent: { caller: quoted },
        };
      case 'whoami_failed':
        return { isError: true, content: [{ type: 'text', text: `cannot serve ${quoted}` }] };
      case 'denied':
        throw new McpError(ErrorCode.InvalidParams, `the credentials ${quoted} lack the scope orders:read`);
      default:
        throw new McpError(ErrorCode.MethodNotFound, `no tool ${request.params.name}`);
    }
  });
  return server;
}

function callsTool(body: unknown, name: string): boolean {
  const message = body as { method?: unknown; params?: { name?: unknown } } | undefined;
  return message?.method === 'tools/call' && message.params?.name === name;
}

/** Starts the server. */
export async function startEchoMcpServer(options: { requireAuthorization?: string } = {}): Promise<EchoMcpServer> {
  const toolCalls: string[] = [];
  const authorizations: (string | undefined)[] = [];
  const http = await serveStatelessMcp(
    () => buildServer(toolCalls),
    (req, res, body) => {
      authorizations.push(req.headers.authorization);
      if (options.requireAuthorization !== undefined && req.headers.authorization !== options.requireAuthorization) {
        res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Basic realm="mcp"' }).end('401 Authorization Required');
        return true;
      }
      if (callsTool(body, 'moved')) {
        toolCalls.push('moved');
        const port = req.socket.localPort ?? 0;
        res.writeHead(307, { location: `http://localhost:${port}${req.url ?? '/'}` }).end();
        return true;
      }
      if (!callsTool(body, 'revoked')) return false;
      toolCalls.push('revoked');
      const refusal = { error: 'invalid_token', error_description: `The access token was revoked: ${quotedCredentials(req.headers, req.url)}` };
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' }).end(JSON.stringify(refusal));
      return true;
    },
  );
  return { url: http.url, toolCalls, authorizations, close: () => http.close() };
}
