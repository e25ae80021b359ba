/**
 * Builds what the gateway's tools run with, from a `server_tools:` section written as in SWITCHBOARD_CONFIG:
 * the checked configuration, a runtime (with an optional resolver and clock), a logger whose lines the test
 * can read, and calls made through the request validation the gateway uses.
 */
import { INVALID, type ConfigProblem } from '#src/catalog/config-readers.ts';
import { createLogger } from '#src/logger.ts';
import { readServerToolsSection } from '#src/server-tools/server-tools-config-schema.ts';
import { resolveServerToolsConfig, type ServerToolsConfig } from '#src/server-tools/server-tools-config.ts';
import { createServerToolRuntime, type ServerToolRuntime } from '#src/server-tools/server-tool-runtime.ts';
import { validateGatewayTools } from '#src/server-tools/validate-gateway-tools.ts';
import type { GatewayToolCall, ResolvedGatewayTool, ToolExecutionContext } from '#src/server-tools/server-tool-types.ts';
import { systemLookup, type LookupAll } from '#src/server-tools/web-fetch/guarded-dispatcher.ts';
import type { MessageRequest } from '#src/api-types.ts';

/** The checked configuration of a `server_tools:` section; throws listing the problems of a bad one. */
export function serverToolsConfig(section: Record<string, unknown> = {}): ServerToolsConfig {
  const problems: ConfigProblem[] = [];
  const read = readServerToolsSection(section, 'server_tools', problems);
  const config = read === INVALID ? undefined : resolveServerToolsConfig(read, problems);
  if (problems.length > 0 || !config) throw new Error(`bad server_tools section: ${JSON.stringify(problems)}`);
  return config;
}

/** A resolver answering from a fixed table, like a hosts file the test controls; other names go to the system's. */
export function fixedResolver(table: Record<string, string[]>, fallback: LookupAll = systemLookup): LookupAll {
  return (hostname, callback) => {
    const addresses = table[hostname.toLowerCase()];
    if (!addresses) {
      fallback(hostname, callback);
      return;
    }
    callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
}

// Tests of the fetch itself (limits, address policy) fetch URLs no conversation holds; the prior-context rule
// has its own tests over HTTP.
class EveryUrl extends Set<string> {
  override has(): boolean {
    return true;
  }
}

/**
 * A tool context over a fresh runtime; `logs` collects every log line. Close the runtime after the test.
 * `priorUrls`: the URLs web_fetch may fetch (every URL when not given).
 */
export function toolContext(config: ServerToolsConfig, options: { resolve?: LookupAll; now?: () => Date; signal?: AbortSignal; priorUrls?: ReadonlySet<string> } = {}): {
  context: ToolExecutionContext;
  runtime: ServerToolRuntime;
  logs: string[];
} {
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', sink: (line) => logs.push(line) });
  const runtime = createServerToolRuntime({ config, logger, ...(options.resolve ? { resolve: options.resolve } : {}), ...(options.now ? { now: options.now } : {}) });
  return { context: { signal: options.signal ?? new AbortController().signal, config, logger, runtime, priorUrls: options.priorUrls ?? new EveryUrl() }, runtime, logs };
}

/** The built-in gateway tool a request entry (`{type: "gateway:web_fetch", ...}`) gives, through the gateway's validation. */
export function toolOf(config: ServerToolsConfig, entry: Record<string, unknown>): ResolvedGatewayTool {
  const validated = validateGatewayTools([entry] as MessageRequest['tools'], config);
  const tool = validated.builtIn[0];
  if (!tool) throw new Error(`no built-in tool from ${JSON.stringify(entry)}`);
  return tool;
}

let callCounter = 0;

/** A call of `tool` with `input`, with a fresh id. */
export function callOf<Tool extends ResolvedGatewayTool>(tool: Tool, input: unknown): GatewayToolCall<Tool> {
  callCounter += 1;
  return { tool, id: `srvtoolu_test${callCounter}`, input };
}
