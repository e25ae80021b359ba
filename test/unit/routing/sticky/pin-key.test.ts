import { describe, expect, it } from 'vitest';
import { stickyKey, type NamedSession } from '#src/routing/sticky/pin-key.ts';
import { request } from '#test/unit/routing/plan-fixtures.ts';

const ACCOUNT = 'acct-1';

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

  it.each<[string, NamedSession | null, string]>([
    ['a session named in the body', { id: 's1', source: 'session_id' }, 'session_id'],
    ['a session named by x-session-id', { id: 'h1', source: 'x-session-id' }, 'x-session-id'],
    ['a session named by Claude Code', { id: 'c1', source: 'x-claude-code-session-id' }, 'x-claude-code-session-id'],
    ['no session: the content hash', null, 'content'],
  ])('%s', (_name, session, source) => {
    expect(stickyKey(request(), session, ACCOUNT).source).toBe(source);
  });

  it('gives the same key to the same session from body or header', () => {
    expect(stickyKey(request(), { id: 'same', source: 'session_id' }, ACCOUNT).key).toBe(stickyKey(request(), { id: 'same', source: 'x-session-id' }, ACCOUNT).key);
  });

  it('keeps one content key as a conversation grows (string or block system text)', () => {
    expect(stickyKey(longer, null, ACCOUNT).key).toBe(stickyKey(conversation, null, ACCOUNT).key);
  });

  it.each<[string, () => string]>([
    ['another account', () => stickyKey(conversation, null, 'acct-2').key],
    ['another system prompt', () => stickyKey({ ...conversation, system: 'Be verbose.' }, null, ACCOUNT).key],
    ['another first message', () => stickyKey({ ...conversation, messages: [{ role: 'user', content: 'other' }] }, null, ACCOUNT).key],
    ['another model', () => stickyKey({ ...conversation, model: 'openai/gpt' }, null, ACCOUNT).key],
  ])('separates %s', (_name, other) => {
    expect(other()).not.toBe(stickyKey(conversation, null, ACCOUNT).key);
  });

  it('separates tenants using the same session id', () => {
    const session: NamedSession = { id: 's', source: 'session_id' };
    expect(stickyKey(request(), session, ACCOUNT).key).not.toBe(stickyKey(request(), session, 'acct-2').key);
  });

  it('never puts the raw session id or prompt in the key', () => {
    const { key } = stickyKey(request(), { id: 'secret-session', source: 'session_id' }, ACCOUNT);
    expect(key).toMatch(/^acct-1:[0-9a-f]{64}$/);
  });
});
