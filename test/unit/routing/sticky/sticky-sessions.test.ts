import { describe, expect, it } from 'vitest';
import type { IncomingHttpHeaders } from 'node:http';
import { createLogger } from '#src/logger.ts';
import { StickySessions, pinFor } from '#src/routing/sticky/sticky-sessions.ts';
import { MemoryPinStore, type SessionPinStore } from '#src/routing/sticky/memory-pin-store.ts';
import { stickyKey } from '#src/routing/sticky/pin-key.ts';
import type { PlannedAttempt, StickyPin } from '#src/routing/plan-types.ts';
import { endpoint, request } from '#test/unit/routing/plan-fixtures.ts';

const ACCOUNT = { accountId: 'acct-1' };

describe('stickyKey', () => {
  const conversation = request({ system: 'You are terse.', messages: [{ role: 'user', content: 'first question' }] });
  const longer = request({
    system: [{ type: 'text', text: 'You are terse.' }],
    messages: [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'answer' },
      { role: 'user', content: 'second question' },
    ],
  });

  it.each<[string, Parameters<typeof request>[0], IncomingHttpHeaders, string]>([
    ['body session_id', { session_id: 's1' }, {}, 'session_id'],
    ['body wins over the header', { session_id: 's1' }, { 'x-session-id': 'h1' }, 'session_id'],
    ['x-session-id header', {}, { 'x-session-id': 'h1' }, 'x-session-id'],
    ['x-session-id wins over Claude Code', {}, { 'x-session-id': 'h1', 'x-claude-code-session-id': 'c1' }, 'x-session-id'],
    ['Claude Code header', {}, { 'x-claude-code-session-id': 'c1' }, 'x-claude-code-session-id'],
    ['an empty header is ignored', {}, { 'x-session-id': '' }, 'content'],
    ['nothing: the content hash', {}, {}, 'content'],
  ])('%s', (_name, body, headers, source) => {
    expect(stickyKey(request(body), headers, ACCOUNT).source).toBe(source);
  });

  it('gives the same key to the same session from body or header', () => {
    expect(stickyKey(request({ session_id: 'same' }), {}, ACCOUNT).key).toBe(stickyKey(request(), { 'x-session-id': 'same' }, ACCOUNT).key);
  });

  it('keeps one content key as a conversation grows (string or block system text)', () => {
    expect(stickyKey(longer, {}, ACCOUNT).key).toBe(stickyKey(conversation, {}, ACCOUNT).key);
  });

  it.each<[string, () => string]>([
    ['another account', () => stickyKey(conversation, {}, { accountId: 'acct-2' }).key],
    ['another system prompt', () => stickyKey({ ...conversation, system: 'Be verbose.' }, {}, ACCOUNT).key],
    ['another first message', () => stickyKey({ ...conversation, messages: [{ role: 'user', content: 'other' }] }, {}, ACCOUNT).key],
    ['another model', () => stickyKey({ ...conversation, model: 'openai/gpt' }, {}, ACCOUNT).key],
  ])('separates %s', (_name, other) => {
    expect(other()).not.toBe(stickyKey(conversation, {}, ACCOUNT).key);
  });

  it('separates tenants using the same session id', () => {
    expect(stickyKey(request({ session_id: 's' }), {}, ACCOUNT).key).not.toBe(stickyKey(request({ session_id: 's' }), {}, { accountId: 'acct-2' }).key);
  });

  it('never puts the raw session id or prompt in the key', () => {
    const { key } = stickyKey(request({ session_id: 'secret-session' }), {}, ACCOUNT);
    expect(key).toMatch(/^acct-1:[0-9a-f]{64}$/);
  });
});

describe('MemoryPinStore', () => {
  const pin: StickyPin = { provider: 'anthropic', credentialId: null, model: 'anthropic/claude' };

  it('returns a pin until its idle time passes', async () => {
    let now = 1_000;
    const store = new MemoryPinStore({ now: () => now });
    await store.set('k', pin, 100);
    now = 1_099;
    expect(await store.get('k')).toEqual(pin);
    now = 1_100;
    expect(await store.get('k')).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('evicts the least recently written pin beyond its bound', async () => {
    const store = new MemoryPinStore({ maxEntries: 2 });
    await store.set('a', pin, 60_000);
    await store.set('b', pin, 60_000);
    await store.set('a', pin, 60_000);
    await store.set('c', pin, 60_000);
    expect([await store.get('a'), await store.get('b'), await store.get('c')]).toEqual([pin, undefined, pin]);
  });

  it('deletes', async () => {
    const store = new MemoryPinStore();
    await store.set('k', pin, 60_000);
    await store.delete('k');
    expect(await store.get('k')).toBeUndefined();
  });
});

describe('StickySessions', () => {
  const attempt = (provider: string, credentialId?: string): PlannedAttempt => ({
    model: 'x/m',
    endpoint: endpoint('x/m', provider),
    credential: credentialId === undefined ? { kind: 'shared' } : { kind: 'byok', credentialId },
    fast: false,
  });
  const lines: string[] = [];
  const logger = createLogger({ level: 'warn', sink: (line) => lines.push(line) });

  it('pins on success with the attempt\'s provider, key and model, and refreshes the idle time', async () => {
    let now = 0;
    const store = new MemoryPinStore({ now: () => now });
    const sessions = new StickySessions({ store, ttlMs: 600_000, logger });
    await sessions.succeeded('k', attempt('bedrock', 'cred-1'));
    expect(await sessions.lookup('k')).toEqual({ provider: 'bedrock', credentialId: 'cred-1', model: 'x/m' });
    now = 500_000;
    await sessions.succeeded('k', attempt('bedrock', 'cred-1'));
    now = 1_000_000;
    expect(await sessions.lookup('k')).not.toBeNull();
    now = 1_100_001;
    expect(await sessions.lookup('k')).toBeNull();
  });

  it.each<[string, PlannedAttempt, boolean]>([
    ['the pinned provider failing drops the pin', attempt('bedrock'), true],
    ['another provider failing keeps it', attempt('vertex'), false],
  ])('%s', async (_name, failed, dropped) => {
    const store = new MemoryPinStore();
    const sessions = new StickySessions({ store, ttlMs: 60_000, logger });
    await sessions.succeeded('k', attempt('bedrock'));
    const pin = await sessions.lookup('k');
    await sessions.failed('k', pin, failed);
    expect((await sessions.lookup('k')) === null).toBe(dropped);
  });

  it('routes without a pin when the store throws, logging a warning', async () => {
    const broken: SessionPinStore = {
      get: () => Promise.reject(new Error('down')),
      set: () => Promise.reject(new Error('down')),
      delete: () => Promise.reject(new Error('down')),
      close: () => Promise.resolve(),
    };
    lines.length = 0;
    const sessions = new StickySessions({ store: broken, ttlMs: 60_000, logger });
    expect(await sessions.lookup('k')).toBeNull();
    await expect(sessions.succeeded('k', attempt('bedrock'))).resolves.toBeUndefined();
    await expect(sessions.failed('k', { provider: 'bedrock', credentialId: null }, attempt('bedrock'))).resolves.toBeUndefined();
    expect(lines).toHaveLength(3);
  });

  it('pinFor records a shared key as a null credential', () => {
    expect(pinFor(attempt('openai'))).toEqual({ provider: 'openai', credentialId: null, model: 'x/m' });
  });
});
