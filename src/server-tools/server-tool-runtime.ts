/**
 * The long-lived state the gateway's tools share across requests: the guarded HTTP client of web fetch, the
 * HTTP client of the search backend, the MCP connections and the clock. Built once at start-up, cheaply:
 * every client is created on first use, and the heavy libraries (Readability, PDF.js, the MCP SDK) load then.
 */
import { Agent, type Dispatcher } from 'undici';
import type { Logger } from '#src/logger.ts';
import { compileAllowlist, type CompiledAllowlist } from './web-fetch/address-policy.ts';
import { createGuardedDispatcher, type LookupAll } from './web-fetch/guarded-dispatcher.ts';
import { McpConnections } from './mcp/mcp-connections.ts';
import type { ServerToolsConfig } from './server-tools-config.ts';

/** Options of `createServerToolRuntime`. */
export interface ServerToolRuntimeOptions {
  config: ServerToolsConfig;
  logger: Logger;
  /** How web fetch resolves host names; tests map names to addresses. Default: the system resolver. */
  resolve?: LookupAll;
  /** The clock of `gateway:datetime` and of the MCP tool-list cache. */
  now?: () => Date;
  /** The version announced to MCP servers. */
  clientVersion?: string;
}

/** The shared state of the gateway's tools. */
export interface ServerToolRuntime {
  now(): Date;
  /** The allowlist of web fetch, parsed once. */
  readonly allowlist: CompiledAllowlist;
  /** The HTTP client of web fetch: connects only to allowed addresses. */
  webFetchDispatcher(): Dispatcher;
  /** The HTTP client of the search backend (an operator-configured address, not checked). */
  searchDispatcher(): Dispatcher;
  readonly mcp: McpConnections;
  /** Closes every connection (graceful shutdown). */
  close(): Promise<void>;
}

/** Creates the runtime; nothing connects until a tool is used. */
export function createServerToolRuntime(options: ServerToolRuntimeOptions): ServerToolRuntime {
  const now = options.now ?? (() => new Date());
  const allowlist = compileAllowlist(options.config.webFetch.allowlist);
  let webFetch: Agent | undefined;
  let search: Agent | undefined;
  const mcp = new McpConnections({
    servers: options.config.mcpServers,
    logger: options.logger,
    clientVersion: options.clientVersion ?? '1.0.0',
    now: () => now().getTime(),
  });
  return {
    now,
    allowlist,
    webFetchDispatcher: () => {
      webFetch ??= createGuardedDispatcher({ allowlist, resolve: options.resolve, connectTimeoutMs: options.config.webFetch.timeoutMs });
      return webFetch;
    },
    searchDispatcher: () => {
      search ??= new Agent({ connections: 16, keepAliveTimeout: 30_000 });
      return search;
    },
    mcp,
    close: async () => {
      await Promise.all([webFetch?.close(), search?.close(), mcp.close()]);
    },
  };
}
