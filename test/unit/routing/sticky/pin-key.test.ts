import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { stickyKey, type NamedSession, type StickyScope } from '#src/routing/sticky/pin-key.ts';
import { request } from '#test/unit/routing/plan-fixtures.ts';

const SCOPE: StickyScope = { accountId: 'acct-1', workspaceId: 'ws-1' };
const SESSION: NamedSession = { id: 's1', source: 'session_id' };

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
    expect(stickyKey(request(), session, SCOPE).source).toBe(source);
  });

  it('gives the same key to the same session from body or header', () => {
    expect(stickyKey(request(), { id: 'same', source: 'session_id' }, SCOPE).key).toBe(stickyKey(request(), { id: 'same', source: 'x-session-id' }, SCOPE).key);
  });

  it('keeps one content key as a conversation grows (string or block system text)', () => {
    expect(stickyKey(longer, null, SCOPE).key).toBe(stickyKey(conversation, null, SCOPE).key);
  });

  const withUser = (base: MessageRequest, fields: Partial<MessageRequest>): MessageRequest => ({ ...base, ...fields });

  // What the key is made of, for a content key and a named session alike: each row changes one part.
  describe.each<[string, NamedSession | null]>([
    ['a content key', null],
    ['a named session', SESSION],
  ])('%s', (_kind, session) => {
    const base = withUser(conversation, { user: 'user-1', metadata: { user_id: 'end-user-1' } });
    const keyOf = (req: MessageRequest, scope: StickyScope = SCOPE) => stickyKey(req, session, scope).key;

    it.each<[string, MessageRequest, StickyScope]>([
      ['another account', base, { accountId: 'acct-2', workspaceId: 'ws-1' }],
      ['another workspace of the account', base, { accountId: 'acct-1', workspaceId: 'ws-2' }],
      ['another `user`', withUser(base, { user: 'user-2' }), SCOPE],
      ['no `user`', withUser(base, { user: undefined }), SCOPE],
      ['another `metadata.user_id`', withUser(base, { metadata: { user_id: 'end-user-2' } }), SCOPE],
      ['a null `metadata.user_id`', withUser(base, { metadata: { user_id: null } }), SCOPE],
      ['`user` and `metadata.user_id` swapped', withUser(base, { user: 'end-user-1', metadata: { user_id: 'user-1' } }), SCOPE],
      ['another model', withUser(base, { model: 'openai/gpt' }), SCOPE],
    ])('separates %s', (_name, other, scope) => {
      expect(keyOf(other, scope)).not.toBe(keyOf(base));
    });

    it('is the same for the same tenant, end user and opening, whatever else the request says', () => {
      expect(keyOf(withUser(base, { max_tokens: 999, temperature: 0.3 }))).toBe(keyOf(base));
    });
  });

  it.each<[string, () => string]>([
    ['another system prompt', () => stickyKey({ ...conversation, system: 'Be verbose.' }, null, SCOPE).key],
    ['another first message', () => stickyKey({ ...conversation, messages: [{ role: 'user', content: 'other' }] }, null, SCOPE).key],
    ['a session id equal to the opening', () => stickyKey(conversation, { id: 'first question', source: 'session_id' }, SCOPE).key],
  ])('separates %s from the content key', (_name, other) => {
    expect(other()).not.toBe(stickyKey(conversation, null, SCOPE).key);
  });

  it('hashes its parts as one JSON array: no separator inside one part makes another opening read alike', () => {
    const left = request({ system: 'You are terse.\u0000first', messages: [{ role: 'user', content: 'question' }] });
    const right = request({ system: 'You are terse.', messages: [{ role: 'user', content: 'first\u0000question' }] });
    expect(stickyKey(left, null, SCOPE).key).not.toBe(stickyKey(right, null, SCOPE).key);
  });

  it('never puts the raw session id, user or prompt in the key', () => {
    const { key } = stickyKey(withUser(request(), { user: 'alice@example.com' }), { id: 'secret-session', source: 'session_id' }, SCOPE);
    expect(key).toMatch(/^acct-1:[0-9a-f]{64}$/);
  });
});
