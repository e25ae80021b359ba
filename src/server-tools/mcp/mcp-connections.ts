/**
 * The gateway's connections to the configured MCP servers, through the official SDK's `Client` over Streamable
 * HTTP. One client (one session) per server, shared by every request, connected on first use and given up
 * after a transport failure (the next use reconnects; the old client is closed once the calls other requests
 * have under way on it are over); a call that times out or whose own connection is cut fails alone. Each server's tool
 * list is cached for `toolListTtlMs`, until the server says it changed (`notifications/tools/list_changed`);
 * a failed refresh keeps serving the old list, and a call that fails on the transport or names a tool the
 * server no longer has marks the list stale. A server that answers 404 to the session it gave (restarted, or
 * it expired the session) gets a new session and the request once more, as the MCP spec asks of clients: the
 * server did not run the request it refused. A session given up or no longer needed (shutdown) is ended with
 * a DELETE, also as the spec asks: a server that keeps sessions would otherwise hold one per reconnect.
 * Nothing here throws for what a server does: every failure is a value the tools turn into an error result.
 * Everything a server says (tool lists, results, errors) leaves here without its header secrets, its URL's
 * query values, the token in its URL's path and its user-info (sent as Basic authentication, src/http/
 * url-user-info.ts), in any encoding (backend-secrets.ts); a log line names the
 * server's URL with those shown as `***` (backend-url.ts). The SDK (about 33 MB of RSS with its validators)
 * is imported on the first use of an MCP tool.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Logger } from '#src/logger.ts';
import type { McpServerConfig } from '../server-tools-config.ts';
import { backendScrubber, backendSecrets, type BackendScrubber } from '../backend-secrets.ts';
import { shownUrl } from '../backend-url.ts';
import { userInfoAsBasic } from '#src/http/url-user-info.ts';

/** A tool as an MCP server lists it. */
export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** One content item of a tool result, as the MCP SDK gives it. */
export type McpContentItem = { type: string; text?: string; mimeType?: string; uri?: string; resource?: { uri?: string; text?: string; mimeType?: string } };

/** What a call returned, or why there is nothing. */
export type McpCallResult =
  | { ok: true; isError: boolean; content: McpContentItem[]; structuredContent?: unknown }
  | { ok: false; message: string };

interface ServerState {
  /** Removes the server's header secrets from what it says (built on first use). */
  scrub?: BackendScrubber;
  client?: Promise<Client>;
  tools?: { list: McpToolInfo[]; fetchedAt: number; stale: boolean };
  listing?: Promise<McpToolInfo[] | undefined>;
}

type TransportModule = typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
type Sdk = { Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client; Transport: TransportModule['StreamableHTTPClientTransport']; HttpError: TransportModule['StreamableHTTPError'] };

let sdk: Promise<Sdk> | undefined;

function loadSdk(): Promise<Sdk> {
  sdk ??= Promise.all([import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/client/streamableHttp.js')]).then(([client, transport]) => ({
    Client: client.Client,
    Transport: transport.StreamableHTTPClientTransport,
    HttpError: transport.StreamableHTTPError,
  }));
  return sdk;
}

// JSON-RPC "invalid params": what the SDK's servers answer for a tool they do not have.
const INVALID_PARAMS = -32602;
// The SDK's own code for a closed connection: the connection is suspect. Not its timeout (-32001): each call
// is its own HTTP request, and dropping the shared connection would fail every other request's call under way.
const TRANSPORT_CODES: ReadonlySet<number> = new Set([-32000]);

/**
 * Whether the server refused the session the client holds: the MCP spec's 404 to a request carrying an
 * `Mcp-Session-Id`. Its code is the HTTP status, not a JSON-RPC code, so it must not pass for a tool's error.
 */
async function isSessionGone(error: unknown): Promise<boolean> {
  const { HttpError } = await loadSdk();
  return error instanceof HttpError && error.code === 404;
}

// How long ending a session may hold up a reconnect's clean-up or the gateway's shutdown.
const END_SESSION_WAIT_MS = 2_000;

/** Ends the client's session (a DELETE, best effort and briefly awaited), then closes it. */
async function release(client: Client): Promise<void> {
  const transport = client.transport as { terminateSession?: () => Promise<void> } | undefined;
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, END_SESSION_WAIT_MS)));
  await Promise.race([transport?.terminateSession?.().catch(() => undefined), waited]);
  clearTimeout(timer);
  // Closing aborts a DELETE still under way.
  await client.close();
}

// The SDK's `McpError` prefix. A server built on the SDK sends its own `McpError`'s message, prefix and all, and
// the client's `McpError` adds one more: every leading one goes, and the code is named once.
const MCP_ERROR_PREFIXES = /^(?:MCP error -?\d+: )+/;

/**
 * What went wrong, without the server's secrets: an error page may quote the token it was sent, in any
 * encoding, and this text reaches the client, the model and the logs.
 */
function describe(error: unknown, scrub: BackendScrubber): string {
  let text = String(error);
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    text = typeof code === 'number' ? `MCP error ${code}: ${error.message.replace(MCP_ERROR_PREFIXES, '')}` : error.message;
    // fetch's own words are only "fetch failed": the reason (ECONNREFUSED, ENOTFOUND) is its cause's code.
    const cause = (error.cause as { code?: unknown } | undefined)?.code;
    if (typeof cause === 'string') text = `${text} (${cause})`;
  }
  return scrub(text);
}

/** Connections to every configured MCP server. */
export class McpConnections {
  readonly #servers: ReadonlyMap<string, McpServerConfig>;
  readonly #logger: Logger;
  readonly #clientVersion: string;
  readonly #now: () => number;
  readonly #state = new Map<string, ServerState>();
  /** Calls under way per client, so a client given up is closed only once its other calls are over. */
  readonly #uses = new Map<Client, { calls: number; retired: boolean }>();

  constructor(options: { servers: ReadonlyMap<string, McpServerConfig>; logger: Logger; clientVersion: string; now?: () => number }) {
    this.#servers = options.servers;
    this.#logger = options.logger;
    this.#clientVersion = options.clientVersion;
    this.#now = options.now ?? Date.now;
  }

  #stateOf(server: string): ServerState {
    let state = this.#state.get(server);
    if (!state) this.#state.set(server, (state = {}));
    return state;
  }

  #scrubberOf(config: McpServerConfig, state: ServerState): BackendScrubber {
    state.scrub ??= backendScrubber(backendSecrets({ headers: config.headers, url: config.url }));
    return state.scrub;
  }

  #connect(config: McpServerConfig, state: ServerState): Promise<Client> {
    state.client ??= (async () => {
      const { Client, Transport } = await loadSdk();
      // A password in the URL goes as Basic authentication: the SDK's fetch refuses a URL holding one.
      const call = userInfoAsBasic(config.url, Object.fromEntries(Object.entries(config.headers).map(([name, value]) => [name, value.reveal()])));
      const headers = call.headers;
      const transport = new Transport(new URL(call.url), {
        requestInit: { headers },
        // A stream cut mid-call fails the call at once instead of waiting to resume it.
        reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1_000, maxReconnectionDelay: 1_000, reconnectionDelayGrowFactor: 1 },
      });
      const client = new Client(
        { name: 'switchboard', version: this.#clientVersion },
        {
          // The next request lists again: a tool the server added is offered at once, not after the TTL.
          listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => this.#markStale(state) } },
        },
      );
      await client.connect(transport, { timeout: config.timeoutMs });
      return client;
    })();
    const connecting = state.client;
    // Failing late, this attempt may have been replaced already: only this one is dropped, never its successor.
    connecting.catch(() => this.#drop(config.name, state, connecting));
    return connecting;
  }

  #markStale(state: ServerState): void {
    if (state.tools) state.tools.stale = true;
  }

  /**
   * Gives up the server's client, `expected` only if given (a client another request already replaced is not
   * this failure's to drop). The next use connects anew; the old client is closed once the calls other
   * requests have under way on it are over, since closing it would fail them all (Connection closed).
   */
  #drop(server: string, state: ServerState, expected?: Promise<Client>): void {
    const client = state.client;
    if (expected !== undefined && client !== expected) return;
    state.client = undefined;
    client?.then((given) => this.#retire(given)).catch(() => undefined);
    this.#markStale(state);
    this.#logger.debug('mcp connection dropped', { server });
  }

  #retire(client: Client): void {
    const uses = this.#uses.get(client);
    if (uses && uses.calls > 0) uses.retired = true;
    else {
      this.#uses.delete(client);
      void release(client).catch(() => undefined);
    }
  }

  async #using<T>(client: Client, use: (client: Client) => Promise<T>): Promise<T> {
    let uses = this.#uses.get(client);
    if (!uses) this.#uses.set(client, (uses = { calls: 0, retired: false }));
    uses.calls += 1;
    try {
      return await use(client);
    } finally {
      uses.calls -= 1;
      if (uses.retired && uses.calls === 0) this.#retire(client);
      else if (uses.calls === 0) this.#uses.delete(client);
    }
  }

  /**
   * Runs `use` on the server's client; once more on a new session if the server refused the one it had.
   * `used` is told which client the last try ran on, for the caller to drop that one alone.
   */
  async #withSession<T>(config: McpServerConfig, state: ServerState, use: (client: Client) => Promise<T>, used: { client?: Promise<Client> }): Promise<T> {
    const connecting = this.#connect(config, state);
    used.client = connecting;
    try {
      return await this.#using(await connecting, use);
    } catch (error) {
      if (!(await isSessionGone(error))) throw error;
      this.#logger.info('mcp session gone, starting a new one', { server: config.name });
      // A concurrent request may already have replaced the refused session.
      this.#drop(config.name, state, connecting);
      const again = this.#connect(config, state);
      used.client = again;
      return this.#using(await again, use);
    }
  }

  async #fetchTools(config: McpServerConfig, state: ServerState): Promise<McpToolInfo[] | undefined> {
    const used: { client?: Promise<Client> } = {};
    try {
      const tools = await this.#withSession(config, state, async (client) => {
        const listed: McpToolInfo[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: config.timeoutMs });
          // Descriptions and schemas reach the model: a server may have written the token it was sent into them.
          const scrub = this.#scrubberOf(config, state);
          for (const tool of page.tools) listed.push({ name: tool.name, ...(tool.description ? { description: scrub(tool.description) } : {}), inputSchema: scrub(tool.inputSchema as Record<string, unknown>) });
          cursor = page.nextCursor;
        } while (cursor);
        return listed;
      }, used);
      state.tools = { list: tools, fetchedAt: this.#now(), stale: false };
      return tools;
    } catch (error) {
      this.#drop(config.name, state, used.client);
      this.#logger.warn('mcp server tool list failed', { server: config.name, url: shownUrl(config.url), reason: describe(error, this.#scrubberOf(config, state)), cached: state.tools !== undefined });
      return state.tools?.list;
    }
  }

  /** The server's tools: the cached list while fresh, else a new one (the old one if that fails), else undefined. */
  async listTools(server: string): Promise<McpToolInfo[] | undefined> {
    const config = this.#servers.get(server);
    if (!config) return undefined;
    const state = this.#stateOf(server);
    const cached = state.tools;
    if (cached && !cached.stale && this.#now() - cached.fetchedAt < config.toolListTtlMs) return cached.list;
    state.listing ??= this.#fetchTools(config, state).finally(() => {
      state.listing = undefined;
    });
    return state.listing;
  }

  /** Calls one tool; a transport failure, a JSON-RPC error, a timeout or an abort comes back as `ok: false`. */
  async callTool(server: string, toolName: string, input: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
    const config = this.#servers.get(server);
    if (!config) return { ok: false, message: `the MCP server ${server} is not configured` };
    const state = this.#stateOf(server);
    const used: { client?: Promise<Client> } = {};
    try {
      const result = await this.#withSession(config, state, (client) => client.callTool({ name: toolName, arguments: input }, undefined, { signal, timeout: config.timeoutMs }), used);
      // A result reaches the model, the client, the record and its exports: a server quoting its token there
      // (a `whoami`, a debug dump) leaks it as surely as an error page.
      const scrub = this.#scrubberOf(config, state);
      const content = Array.isArray(result.content) ? scrub(result.content as McpContentItem[]) : [];
      return { ok: true, isError: result.isError === true, content, ...(result.structuredContent !== undefined ? { structuredContent: scrub(result.structuredContent) } : {}) };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const fromServer = typeof code === 'number' && !TRANSPORT_CODES.has(code);
      // A JSON-RPC error from a live server keeps the connection, but the tool list may be out of date.
      if (fromServer && code === INVALID_PARAMS && state.tools) state.tools.stale = true;
      // A failed transport is suspect for later calls, not for the calls other requests have under way on it.
      if (!fromServer && !signal.aborted) this.#drop(server, state, used.client);
      const reason = describe(error, this.#scrubberOf(config, state));
      this.#logger.warn('mcp tool call failed', { server, url: shownUrl(config.url), tool: toolName, reason });
      return { ok: false, message: signal.aborted ? 'the call was cancelled' : reason };
    }
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    const clients = [...this.#state.values()].map((state) => state.client);
    // Those given up with calls still under way, too.
    const retired = [...this.#uses].filter(([, uses]) => uses.retired).map(([client]) => Promise.resolve(client));
    this.#state.clear();
    this.#uses.clear();
    await Promise.all([...clients, ...retired].map((client) => client?.then(release).catch(() => undefined)));
  }
}
