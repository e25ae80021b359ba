/**
 * The heavy libraries of the gateway's tools (Readability and linkedom, PDF.js, the MCP SDK) and of the
 * moderation plugin (the OpenAI SDK) cost tens of MB of RSS each: they must load on first use, never when the
 * gateway starts. A child process records
 * every module it resolves while importing the server and the tools, then uses the tools.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

const SCRIPT = `
import { registerHooks } from 'node:module';
const resolved = [];
registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); resolved.push(result.url); return result; } });
const heavy = () => [...new Set(resolved.flatMap((url) => { const match = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(url); return match && /^(linkedom|@mozilla\\/readability|unpdf|@modelcontextprotocol\\/sdk|openai)$/.test(match[1]) ? [match[1]] : []; }))].sort();
await import('#src/server.ts');
const tools = await import('#src/server-tools/index.ts');
const atStart = heavy();
const { readableTextFromHtml } = await import('#src/server-tools/web-fetch/readable-html.ts');
await readableTextFromHtml('<html><body><p>hello</p></body></html>');
const afterHtml = heavy();
const { McpConnections } = await import('#src/server-tools/mcp/mcp-connections.ts');
const logger = { debug() {}, info() {}, warn() {}, error() {} };
const servers = new Map([['x', { name: 'x', url: 'http://127.0.0.1:1/mcp', headers: {}, timeoutMs: 1000, toolListTtlMs: 0 }]]);
await new McpConnections({ servers, logger, clientVersion: '1' }).listTools('x');
const afterMcp = heavy();
console.log(JSON.stringify({ atStart, afterHtml, afterMcp, exported: typeof tools.executeGatewayTool }));
`;

describe('the heavy libraries of the tools load lazily', () => {
  it('none at start-up; each on first use', () => {
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', SCRIPT], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    const result = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(result).toEqual({
      atStart: [],
      afterHtml: ['@mozilla/readability', 'linkedom'],
      afterMcp: ['@modelcontextprotocol/sdk', '@mozilla/readability', 'linkedom'],
      exported: 'function',
    });
  });
});
