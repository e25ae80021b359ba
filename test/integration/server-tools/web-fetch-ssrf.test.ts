import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { executeGatewayTool } from '#src/server-tools/gateway-tool-registry.ts';
import { findBlockedAddress } from '#src/server-tools/web-fetch/guarded-dispatcher.ts';
import type { GatewayToolOutcome, ServerToolRuntime } from '#src/server-tools/index.ts';
import { redirect, serve, startFakeWebServer, type FakeWebServer } from '#test/helpers/fake-tool-servers/fake-web-server.ts';
import { callOf, fixedResolver, serverToolsConfig, toolContext, toolOf } from '#test/helpers/server-tool-context.ts';

// The server every refused URL points at (by address or by a name resolving to it): it must never see a connection.
let target: FakeWebServer;
// An allowlisted page that redirects to private addresses.
let redirector: FakeWebServer;
const runtimes: ServerToolRuntime[] = [];

beforeAll(async () => {
  target = await startFakeWebServer({ '/': serve('text/html', '<p>secret admin page</p>') });
  redirector = await startFakeWebServer({
    '/to-loopback': redirect(`http://127.0.0.1:${target.port}/`),
    '/to-localhost': redirect(`http://localhost:${target.port}/`),
    '/to-mapped': redirect(`http://[::ffff:7f00:1]:${target.port}/`),
    '/to-metadata': redirect('http://169.254.169.254/latest/meta-data/iam/security-credentials/'),
    '/to-private': redirect('http://10.0.0.1/admin', 307),
    '/to-evil': redirect(`http://evil.test:${target.port}/`),
  });
});

afterAll(async () => {
  await Promise.all(runtimes.map((runtime) => runtime.close()));
  await Promise.all([target.close(), redirector.close()]);
});

/** Runs gateway:web_fetch on one URL with the default policy (no allowlist) and a resolver the test controls. */
async function fetchWith(url: string, options: { allowlist?: string[]; system?: boolean } = {}): Promise<GatewayToolOutcome> {
  const config = serverToolsConfig({ web_fetch: { private_network_allowlist: options.allowlist ?? [], timeout_ms: 3_000 } });
  const resolver = fixedResolver({
    'evil.test': ['127.0.0.1'],
    'rebind.test': ['::1'],
    'mixed.test': ['10.1.2.3', '127.0.0.1'],
    'metadata.test': ['169.254.169.254'],
    'allowed.test': ['127.0.0.1'],
  });
  const { context, runtime } = toolContext(config, options.system ? {} : { resolve: resolver });
  runtimes.push(runtime);
  return executeGatewayTool(callOf(toolOf(config, { type: 'gateway:web_fetch' }), { url }), context);
}

function expectRefused(outcome: GatewayToolOutcome, reason: string): void {
  expect(outcome.isError).toBe(true);
  expect(outcome.clientResult).toEqual({ type: 'web_fetch_tool_result', tool_use_id: outcome.toolUseId, content: { type: 'web_fetch_tool_result_error', error_code: 'url_not_allowed' } });
  expect(outcome.modelText).toContain(reason);
  expect(outcome.usage).toEqual({ web_fetch_requests: 1 });
}

describe('gateway:web_fetch refuses non-public addresses before connecting', () => {
  it.each([
    ['IPv4 loopback', () => `http://127.0.0.1:${target.port}/`, 'a loopback address'],
    ['another loopback address', () => `http://127.8.9.10:${target.port}/`, 'a loopback address'],
    ['a private address', () => `http://10.0.0.1:${target.port}/`, 'a private address'],
    ['a 192.168 address', () => `http://192.168.1.1:${target.port}/`, 'a private address'],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/', 'a cloud metadata address'],
    ['the AWS IPv6 metadata address', () => 'http://[fd00:ec2::254]/latest/meta-data/', 'a cloud metadata address'],
    ['IPv6 loopback', () => `http://[::1]:${target.port}/`, 'a loopback address'],
    ['IPv4-mapped IPv6 loopback', () => `http://[::ffff:127.0.0.1]:${target.port}/`, 'a loopback address'],
    ['carrier-grade NAT', () => `http://100.64.0.1:${target.port}/`, 'carrier-grade NAT'],
    ['link-local IPv6', () => `http://[fe80::1]:${target.port}/`, 'a link-local address'],
    ['unique-local IPv6', () => `http://[fc00::1]:${target.port}/`, 'a unique-local address'],
    ['the unspecified address', () => `http://0.0.0.0:${target.port}/`, 'an unspecified address'],
    ['a decimal IPv4 literal', () => `http://2130706433:${target.port}/`, 'a loopback address'],
    ['a hexadecimal IPv4 literal', () => `http://0x7f.0.0.1:${target.port}/`, 'a loopback address'],
    ['a NAT64 address of a private host', () => 'http://[64:ff9b::a00:1]/', 'a NAT64 address'],
    ['a name resolving to loopback', () => `http://evil.test:${target.port}/`, 'evil.test resolves to 127.0.0.1, a loopback address'],
    ['a name resolving to IPv6 loopback', () => `http://rebind.test:${target.port}/`, 'rebind.test resolves to ::1, a loopback address'],
    ['a name with two private addresses', () => `http://mixed.test:${target.port}/`, 'mixed.test resolves to 10.1.2.3, a private address'],
    ['a name resolving to the metadata address', () => 'http://metadata.test/', 'metadata.test resolves to 169.254.169.254, a cloud metadata address'],
  ])('%s', async (_name, url, reason) => {
    expectRefused(await fetchWith(url()), reason);
  });

  it('localhost, through the system resolver', async () => {
    const outcome = await fetchWith(`http://localhost:${target.port}/`, { system: true });
    expectRefused(outcome, 'localhost resolves to');
    expect(outcome.modelText).toContain('a loopback address');
  });

  it.each([
    ['file', 'file:///etc/passwd', 'only http and https URLs can be fetched, not file'],
    ['ftp', 'ftp://127.0.0.1/', 'only http and https URLs can be fetched, not ftp'],
    ['credentials in the URL', 'http://user:pass@example.com/', 'URLs with credentials cannot be fetched'],
  ])('a %s URL', async (_name, url, reason) => {
    expectRefused(await fetchWith(url), reason);
  });

  it('the dispatcher itself refuses an IP literal, without the tool\'s own check', async () => {
    const config = serverToolsConfig();
    const { runtime } = toolContext(config);
    runtimes.push(runtime);
    const failure = await fetch(`http://127.0.0.1:${target.port}/`, { dispatcher: runtime.webFetchDispatcher() }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(findBlockedAddress(failure)?.reason).toBe('a loopback address');
  });

  it('no refused URL ever reached the server behind them', () => {
    expect(target.connections()).toBe(0);
    expect(target.paths).toEqual([]);
  });
});

describe('redirects are checked hop by hop', () => {
  const allowlist = ['allowed.test'];

  it.each([
    ['to 127.0.0.1', '/to-loopback', 'a loopback address'],
    ['to localhost', '/to-localhost', 'a loopback address'],
    ['to an IPv4-mapped loopback', '/to-mapped', 'a loopback address'],
    ['to the metadata address', '/to-metadata', 'a cloud metadata address'],
    ['to a private address (307)', '/to-private', 'a private address'],
    ['to a name resolving to loopback', '/to-evil', 'evil.test resolves to 127.0.0.1'],
  ])('a redirect %s is refused', async (_name, path, reason) => {
    const before = redirector.paths.length;
    const outcome = await fetchWith(`http://allowed.test:${redirector.port}${path}`, { allowlist, system: false });
    expectRefused(outcome, reason);
    expect(outcome.modelText).toContain('redirected to');
    // The allowlisted first hop was fetched; the private second hop was not.
    expect(redirector.paths.slice(before)).toEqual([path]);
  });

  it('the redirect targets never saw a connection', () => {
    expect(target.connections()).toBe(0);
  });
});

describe('the allowlist', () => {
  it('lets a listed address through, and only that one', async () => {
    const page = await startFakeWebServer({ '/': serve('text/plain', 'hello from the intranet') });
    try {
      const allowed = await fetchWith(`${page.origin}/`, { allowlist: ['127.0.0.1/32'] });
      expect(allowed.isError).toBe(false);
      expect(allowed.modelText).toContain('hello from the intranet');
      const other = await fetchWith(`http://[::1]:${page.port}/`, { allowlist: ['127.0.0.1/32'] });
      expectRefused(other, 'a loopback address');
      expect(page.connections()).toBe(1);
    } finally {
      await page.close();
    }
  });

  it('a listed host name may resolve to a private address', async () => {
    const page = await startFakeWebServer({ '/': serve('text/plain', 'named intranet host') });
    try {
      const outcome = await fetchWith(`http://allowed.test:${page.port}/`, { allowlist: ['allowed.test'] });
      expect(outcome.isError).toBe(false);
      expect(outcome.modelText).toContain('named intranet host');
      // Only the name is trusted: the same address reached by another name is refused.
      expectRefused(await fetchWith(`http://evil.test:${page.port}/`, { allowlist: ['allowed.test'] }), 'a loopback address');
    } finally {
      await page.close();
    }
  });
});
