import { describe, expect, it } from 'vitest';
import { createLogger } from '#src/logger.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import { StickySessions, pinFor } from '#src/routing/sticky/sticky-sessions.ts';
import { MemoryPinStore, type SessionPinStore } from '#src/routing/sticky/memory-pin-store.ts';
import { attempt as attemptOn } from '#test/unit/routing/attempt-fixtures.ts';

describe('StickySessions', () => {
  const attempt = (provider: string, credentialId?: string): Attempt =>
    attemptOn('x/m', provider, { credential: credentialId === undefined ? { kind: 'shared' } : { kind: 'byok', credentialId } });
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

  it.each<[string, Attempt, boolean]>([
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

  it('keeps a thread pin for its own lifetime, past the session idle time', async () => {
    let now = 0;
    const store = new MemoryPinStore({ now: () => now });
    const sessions = new StickySessions({ store, ttlMs: 1_000, threadTtlMs: 86_400_000, logger });
    await sessions.succeeded('session', attempt('anthropic'));
    await sessions.threadAnswered('thread', attempt('anthropic'), 'msg_last');
    now = 1_001;
    expect(await sessions.lookup('session')).toBeNull();
    expect(await sessions.lookupThread('thread')).toEqual({ provider: 'anthropic', credentialId: null, model: 'x/m', messageId: 'msg_last' });
    now = 86_400_001;
    expect(await sessions.lookupThread('thread')).toBeNull();
  });

  it('pinFor records a shared key as a null credential', () => {
    expect(pinFor(attempt('openai'))).toEqual({ provider: 'openai', credentialId: null, model: 'x/m' });
  });
});
