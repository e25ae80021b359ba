import { describe, expect, it } from 'vitest';
import {
  answeringPendingCalls,
  attemptsOnCallersAccounts,
  attemptsOnThreadAccount,
  continuedMessageId,
  resumedAtPinnedAnswer,
  threadPinKey,
  threadsRequest,
  withPendingResults,
} from '#src/routing/sticky/thread-pins.ts';
import { ThreadRejectedError } from '#src/thread-errors.ts';
import type { MessageParam, MessageRequest, ToolResultBlockParam } from '#src/api-types.ts';
import type { StickyPin } from '#src/routing/plan-types.ts';

type Credential = { kind: 'shared' } | { kind: 'byok'; credentialId: string };
const at = (slug: string, credential: Credential) => ({ provider: { slug }, credential, label: `${slug}#${credential.kind === 'byok' ? credential.credentialId : 'shared'}` });
const request = (thread: unknown): MessageRequest => ({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }], ...(thread === undefined ? {} : { thread }) }) as MessageRequest;

describe('continuedMessageId', () => {
  it.each([
    ['a continue', { type: 'continue', previous_message_id: 'msg_1' }, 'msg_1', true],
    ['a create', { type: 'create' }, undefined, true],
    ['a continue without its id', { type: 'continue' }, undefined, true],
    ['no thread', undefined, undefined, false],
    ['a null thread', null, undefined, false],
  ])('%s', (_name, thread, id, threads) => {
    expect(continuedMessageId(request(thread))).toBe(id);
    expect(threadsRequest(request(thread))).toBe(threads);
  });
});

describe('resumedAtPinnedAnswer', () => {
  const pin: StickyPin = { provider: 'anthropic', credentialId: null };
  it.each<[string, unknown, StickyPin | null, unknown]>([
    ['a continue whose pin names a later answer (a tool loop’s last step)', { type: 'continue', previous_message_id: 'msg_1' }, { ...pin, messageId: 'msg_3' }, { type: 'continue', previous_message_id: 'msg_3' }],
    ['a continue whose pin names no other answer', { type: 'continue', previous_message_id: 'msg_1' }, pin, { type: 'continue', previous_message_id: 'msg_1' }],
    ['a continue without a pin', { type: 'continue', previous_message_id: 'msg_1' }, null, { type: 'continue', previous_message_id: 'msg_1' }],
  ])('%s', (_name, thread, threadPin, sent) => {
    const original = request(thread);
    const resumed = resumedAtPinnedAnswer(original, threadPin);
    expect((resumed as { thread?: unknown }).thread).toEqual(sent);
    expect((original as { thread?: unknown }).thread).toEqual(thread);
  });
});

describe('withPendingResults', () => {
  const results: ToolResultBlockParam[] = [{ type: 'tool_result', tool_use_id: 'toolu_gw', content: 'It is 15:00.' }];
  const clientResult = { type: 'tool_result', tool_use_id: 'toolu_client', content: 'shipped' } as const;
  it.each<[string, MessageParam[], MessageParam[]]>([
    ['a user turn of text', [{ role: 'user', content: 'Go on.' }], [{ role: 'user', content: [...results, { type: 'text', text: 'Go on.' }] }]],
    ['a user turn of the client’s own results', [{ role: 'user', content: [clientResult] }], [{ role: 'user', content: [...results, clientResult] }]],
    ['an assistant turn first', [{ role: 'assistant', content: 'Sure' }], [{ role: 'user', content: results }, { role: 'assistant', content: 'Sure' }]],
    ['no messages', [], [{ role: 'user', content: results }]],
  ])('puts the results first: %s', (_name, messages, expected) => {
    expect(withPendingResults(messages, results)).toEqual(expected);
  });

  it('answeringPendingCalls changes only a continue whose pin holds results', () => {
    const pin: StickyPin = { provider: 'anthropic', credentialId: null, pendingResults: results };
    const continued = request({ type: 'continue', previous_message_id: 'msg_1' });
    expect(answeringPendingCalls(continued, pin).messages).toEqual([{ role: 'user', content: [...results, { type: 'text', text: 'hi' }] }]);
    expect(answeringPendingCalls(continued, { provider: 'anthropic', credentialId: null })).toBe(continued);
    expect(answeringPendingCalls(continued, null)).toBe(continued);
    expect(continued.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });
});

describe('threadPinKey', () => {
  const w1 = { accountId: 'acct1', workspaceId: 'ws1' };
  it('is scoped by account and workspace and does not hold the id as it is', () => {
    expect(threadPinKey(w1, 'msg_1')).not.toBe(threadPinKey({ accountId: 'acct2', workspaceId: 'ws1' }, 'msg_1'));
    expect(threadPinKey(w1, 'msg_1')).not.toBe(threadPinKey({ accountId: 'acct1', workspaceId: 'ws2' }, 'msg_1'));
    expect(threadPinKey(w1, 'msg_1')).toBe(threadPinKey({ ...w1 }, 'msg_1'));
    expect(threadPinKey(w1, 'msg_1')).toMatch(/^acct1:thread:[0-9a-f]{64}$/);
  });
});

describe('attemptsOnThreadAccount', () => {
  const attempts = [at('anthropic', { kind: 'byok', credentialId: 'k1' }), at('anthropic', { kind: 'shared' }), at('anthropic-two', { kind: 'shared' }), at('openai', { kind: 'shared' })];
  it.each<[string, StickyPin, string[]]>([
    ['the shared key of one provider', { provider: 'anthropic', credentialId: null }, ['anthropic#shared']],
    ['a BYOK credential', { provider: 'anthropic', credentialId: 'k1' }, ['anthropic#k1']],
    ['another provider', { provider: 'anthropic-two', credentialId: null, model: 'x' }, ['anthropic-two#shared']],
  ])('keeps only the pinned account: %s', (_name, pin, labels) => {
    expect(attemptsOnThreadAccount(attempts, pin).map((attempt) => attempt.label)).toEqual(labels);
  });

  it.each<[string, StickyPin]>([
    ['a credential the plan no longer has', { provider: 'anthropic', credentialId: 'gone' }],
    ['a provider the plan left out', { provider: 'anthropic-eu', credentialId: null }],
  ])('answers thread_not_found for %s', (_name, pin) => {
    const error = (() => {
      try {
        attemptsOnThreadAccount(attempts, pin);
        return null;
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ThreadRejectedError);
    expect((error as ThreadRejectedError).status).toBe(404);
    expect((error as ThreadRejectedError).errorCode).toBe('thread_not_found');
  });
});

describe('attemptsOnCallersAccounts', () => {
  const on = (slug: string, family: string, credential: Credential) => ({ ...at(slug, credential), provider: { slug, family } });
  const byok = (id: string): Credential => ({ kind: 'byok', credentialId: id });
  const shared: Credential = { kind: 'shared' };

  it.each<[string, ReturnType<typeof on>[], string[]]>([
    ['the BYOK keys of Anthropic-format providers, in plan order', [on('anthropic', 'anthropic', shared), on('anthropic', 'anthropic', byok('k1')), on('anthropic-two', 'anthropic', byok('k2'))], ['anthropic#k1', 'anthropic-two#k2']],
    ['not a BYOK key of a translated vendor', [on('openai', 'openai-responses', byok('k3')), on('anthropic', 'anthropic', byok('k1'))], ['anthropic#k1']],
  ])('keeps %s', (_name, attempts, labels) => {
    expect(attemptsOnCallersAccounts(attempts).map((attempt) => attempt.label)).toEqual(labels);
  });

  it.each<[string, ReturnType<typeof on>[]]>([
    ['only shared keys', [on('anthropic', 'anthropic', shared), on('anthropic-two', 'anthropic', shared)]],
    ['only translated vendors', [on('openai', 'openai-responses', byok('k3')), on('google', 'google', shared)]],
    ['no attempt at all', []],
  ])('answers thread_not_found with %s', (_name, attempts) => {
    expect(() => attemptsOnCallersAccounts(attempts)).toThrow(ThreadRejectedError);
    try {
      attemptsOnCallersAccounts(attempts);
    } catch (caught) {
      expect((caught as ThreadRejectedError).status).toBe(404);
      expect((caught as ThreadRejectedError).errorCode).toBe('thread_not_found');
    }
  });
});
