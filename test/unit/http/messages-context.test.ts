import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { ResidencyRegion } from '#src/data-region.ts';
import { readHeaderContext, requestRegion } from '#src/http/messages-context.ts';

const HOSTS = new Map<string, ResidencyRegion>([['eu.gw.example.com', 'europe']]);

describe('the session a request names', () => {
  it.each<[string, string | undefined, IncomingHttpHeaders, unknown]>([
    ['the body session_id', 's1', {}, { id: 's1', source: 'session_id' }],
    ['the body wins over the header', 's1', { 'x-session-id': 'h1' }, { id: 's1', source: 'session_id' }],
    ['x-session-id', undefined, { 'x-session-id': 'h1' }, { id: 'h1', source: 'x-session-id' }],
    ['x-session-id wins over Claude Code', undefined, { 'x-session-id': 'h1', 'x-claude-code-session-id': 'c1' }, { id: 'h1', source: 'x-session-id' }],
    ["Claude Code's header", undefined, { 'x-claude-code-session-id': 'c1' }, { id: 'c1', source: 'x-claude-code-session-id' }],
    ['an empty body session_id is ignored', '', { 'x-session-id': 'h1' }, { id: 'h1', source: 'x-session-id' }],
    ['an empty header is ignored', undefined, { 'x-session-id': '' }, null],
    ['nothing', undefined, {}, null],
  ])('%s', (_name, bodySessionId, headers, session) => {
    expect(readHeaderContext(headers, bodySessionId, HOSTS).session).toEqual(session);
  });

  it("keeps Claude Code's session id even when another names the session", () => {
    const context = readHeaderContext({ 'x-claude-code-session-id': 'c1' }, 's1', HOSTS);
    expect([context.session?.source, context.claudeCodeSessionId]).toEqual(['session_id', 'c1']);
    expect(readHeaderContext({}, undefined, HOSTS).claudeCodeSessionId).toBeNull();
  });
});

describe('the metadata opt-in', () => {
  it.each<[IncomingHttpHeaders, boolean]>([
    [{}, false],
    [{ 'x-gateway-metadata': 'enabled' }, true],
    [{ 'x-gateway-metadata': 'disabled' }, false],
    [{ 'x-gateway-experimental-metadata': 'enabled' }, true],
    [{ 'x-gateway-experimental-metadata': 'disabled' }, false],
    [{ 'x-gateway-metadata': 'disabled', 'x-gateway-experimental-metadata': 'enabled' }, false],
    [{ 'x-gateway-metadata': 'enabled', 'x-gateway-experimental-metadata': 'disabled' }, true],
    [{ 'x-gateway-metadata': 'yes' }, false],
  ])('headers %j -> %s', (headers, wanted) => {
    expect(readHeaderContext(headers, undefined, HOSTS).wantsMetadata).toBe(wanted);
  });
});

describe('the data region', () => {
  it.each<[IncomingHttpHeaders, string]>([
    [{}, 'global'],
    [{ 'x-gateway-region': 'europe' }, 'europe'],
    [{ 'x-gateway-region': 'us', host: 'eu.gw.example.com' }, 'us'],
    [{ host: 'eu.gw.example.com' }, 'europe'],
    [{ host: 'EU.gw.example.com:8443' }, 'europe'],
    [{ host: 'gw.example.com' }, 'global'],
    [{ 'x-gateway-region': 'asia' }, 'global'],
  ])('headers %j -> %s', (headers, region) => {
    expect(requestRegion(headers, HOSTS)).toBe(region);
  });
});

describe('the headers forwarded to Anthropic-format upstreams', () => {
  it('keeps anthropic-version and anthropic-beta as sent, and nothing else', () => {
    const headers = { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'a,b', authorization: 'Bearer sb-x', 'x-api-key': 'sk-ant', 'x-session-id': 's', 'anthropic-workspace-id': 'wrkspc_1' };
    expect(readHeaderContext(headers, undefined, HOSTS).forwardHeaders).toEqual({ 'anthropic-version': '2023-06-01', 'anthropic-beta': 'a,b' });
  });
});

describe("the headers naming places in the caller's Anthropic organization", () => {
  it.each<[IncomingHttpHeaders, Record<string, string> | null]>([
    [{}, null],
    [{ 'anthropic-version': '2023-06-01' }, null],
    [{ 'anthropic-workspace-id': 'wrkspc_1' }, { 'anthropic-workspace-id': 'wrkspc_1' }],
    [{ 'anthropic-workspace-id': ' wrkspc_1 ' }, { 'anthropic-workspace-id': 'wrkspc_1' }],
    [{ 'anthropic-workspace-id': '  ' }, null],
    [{ 'anthropic-user-profile-id': 'uprof_1' }, { 'anthropic-user-profile-id': 'uprof_1' }],
    [{ 'anthropic-workspace-id': 'wrkspc_1', 'anthropic-user-profile-id': 'uprof_1' }, { 'anthropic-workspace-id': 'wrkspc_1', 'anthropic-user-profile-id': 'uprof_1' }],
  ])('headers %j -> %j', (headers, found) => {
    expect(readHeaderContext(headers, undefined, HOSTS).organizationHeaders).toEqual(found);
  });
});

describe('the Anthropic headers forwarded upstream', () => {
  it.each<[IncomingHttpHeaders, Record<string, string>]>([
    [{}, {}],
    [{ 'anthropic-version': '2023-06-01' }, { 'anthropic-version': '2023-06-01' }],
    [{ 'anthropic-version': '' }, {}],
    [{ 'anthropic-version': '   ' }, {}],
    [{ 'anthropic-version': ' 2023-06-01 ' }, { 'anthropic-version': '2023-06-01' }],
    [{ 'anthropic-beta': 'a,b' }, { 'anthropic-beta': 'a,b' }],
    [{ 'anthropic-beta': 'a, b' }, { 'anthropic-beta': 'a,b' }],
    [{ 'anthropic-beta': 'a,,b' }, { 'anthropic-beta': 'a,b' }],
    [{ 'anthropic-beta': ' , x ,' }, { 'anthropic-beta': 'x' }],
    [{ 'anthropic-beta': ',' }, {}],
    [{ 'anthropic-beta': '' }, {}],
    [{ 'anthropic-beta': 'context-1m-2025-08-07' }, { 'anthropic-beta': 'context-1m-2025-08-07' }],
  ])('headers %j -> %j', (headers, forwarded) => {
    expect(readHeaderContext(headers, undefined, HOSTS).forwardHeaders).toEqual(forwarded);
  });
});
