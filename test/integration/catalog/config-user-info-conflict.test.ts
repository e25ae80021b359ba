/**
 * `switchboard serve` (the real command, as a child process) refusing a configuration file that gives a
 * backend two credentials: user-info in its URL, which is sent as `Authorization: Basic`, and an
 * `authorization` header (any case) beside it; or user-info on a Langfuse endpoint, whose Basic
 * authentication is its keys'. Each message names the field; none prints the password or its Basic token.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const CLI = new URL('../../../src/cli.ts', import.meta.url).pathname;
// No word in it: the loader's message names a variable wherever a run of its value appears.
const PASSWORD = 'Qx7zPw9d41e7a0Vb';

let directory: string;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'switchboard-user-info-'));
});
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** The exit code and output of `switchboard serve` with this configuration file. */
function serveUntilExit(yaml: string): Promise<{ code: number | null; output: string }> {
  const file = join(directory, 'switchboard.yaml');
  writeFileSync(file, yaml);
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', PORT: '0', SWITCHBOARD_DATA_DIR: join(directory, 'data'), SWITCHBOARD_CONFIG: file, BACKEND_PASSWORD: PASSWORD },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  // A gateway that accepts the file runs on: stopped, so the test fails instead of leaving it behind.
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

const token = (user: string) => Buffer.from(`${user}:${PASSWORD}`).toString('base64');

/** Neither the password nor a Basic token made of it is in the output, nor a stack trace. */
function expectNoSecret(output: string): void {
  for (const secret of [PASSWORD, ...['searx', 'mcp', 'otel', 'lf'].map(token)]) expect(output).not.toContain(secret);
  expect(output).not.toMatch(/\n\s+at /);
}

it('names a gateway tool backend\'s authorization header given beside its URL\'s user-info, never the password', async () => {
  const yaml = [
    'server_tools:',
    '  web_search: { backend: searxng, base_url: "https://searx:${BACKEND_PASSWORD}@searx.example.org", headers: { authorization: "Bearer searx-header-token" } }',
    '  mcp_servers:',
    '    tickets: { url: "https://mcp:${BACKEND_PASSWORD}@mcp.example.org/mcp", headers: { Authorization: "Bearer mcp-header-token" } }',
    '    fine: { url: "https://mcp:${BACKEND_PASSWORD}@mcp.example.org/mcp", headers: { X-Tenant: acme } }',
    '',
  ].join('\n');
  const { code, output } = await serveUntilExit(yaml);
  expect(code).toBe(1);
  expect(output).toContain('server_tools.web_search.headers.authorization: conflicts with the user name and password in base_url, which are sent as Authorization: Basic; give one or the other');
  expect(output).toContain('server_tools.mcp_servers.tickets.headers.Authorization: conflicts with the user name and password in url, which are sent as Authorization: Basic; give one or the other');
  expect(output).not.toContain('server_tools.mcp_servers.fine');
  expectNoSecret(output);
});

it('names a destination\'s authorization header beside its endpoint\'s user-info, and user-info on a langfuse endpoint', async () => {
  const yaml = [
    'observability:',
    '  destinations:',
    '    - { name: traces, kind: otlp, endpoint: "https://otel:${BACKEND_PASSWORD}@otel.example.org/v1/traces", headers: { AUTHORIZATION: "Bearer otel-header-token" } }',
    '    - { name: lf, kind: langfuse, endpoint: "https://lf:${BACKEND_PASSWORD}@langfuse.example.org", public_key: pk-lf-1, secret_key: sk-lf-1 }',
    '    - { name: hook, kind: webhook, endpoint: "https://hook:${BACKEND_PASSWORD}@hooks.example.org/in", signing_secret: whsec_0123456789abcdef }',
    '',
  ].join('\n');
  const { code, output } = await serveUntilExit(yaml);
  expect(code).toBe(1);
  expect(output).toContain('observability.destinations[0]: headers.AUTHORIZATION conflicts with the user name and password in endpoint, which are sent as Authorization: Basic; give one or the other');
  expect(output).toContain('observability.destinations[1]: endpoint must not carry a user name or password for a langfuse destination: it authenticates with public_key and secret_key (sent as Basic authentication)');
  expect(output).not.toContain('observability.destinations[2]');
  expectNoSecret(output);
});

it('quotes a refused backend URL with its user-info as ***, a password written in the file included', async () => {
  // Written out in the file, not through ${VAR}: the loader names a variable's value, nothing names this one.
  const yaml = [
    'server_tools:',
    `  web_search: { backend: searxng, base_url: "ftp://searx:${PASSWORD}@searx.example.org" }`,
    '  mcp_servers:',
    `    tickets: { url: "http://mcp:p%40${PASSWORD}@[::1/mcp" }`,
    '',
  ].join('\n');
  const { code, output } = await serveUntilExit(yaml);
  expect(code).toBe(1);
  expect(output).toContain('server_tools.web_search.base_url: must be an http or https URL, got "ftp://***@searx.example.org"');
  expect(output).toContain('server_tools.mcp_servers.tickets.url: must be an http or https URL, got "http://***@[::1/mcp"');
  expectNoSecret(output);
});
