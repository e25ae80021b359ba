/**
 * The auto-router reads the effort the answer is generated at: a system message's per-message
 * `output_config.effort` (Claude Code's on the 5.5 models, mid-conversation) over the top-level one, the last
 * such message winning, as the translators do. One point of difficulty moves a plain "Hi" from the cheapest
 * of six candidates to the second.
 */
import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { AUTO_MODEL, chooseModel, type AutoRouterCandidate } from '#src/routing/auto-router/auto-router.ts';
import { estimateDifficulty } from '#src/routing/auto-router/prompt-difficulty.ts';
import { requestedEffort } from '#src/request/requested-effort.ts';
import { request } from '#test/unit/routing/plan-fixtures.ts';

function candidate(slug: string, input: number, output: number): AutoRouterCandidate {
  return { slug, pricing: { input, output }, capabilities: { tools: true, vision: true, pdf: true, thinking: true }, contextLength: 200_000 };
}

const CANDIDATES = [candidate('a/cheapest', 0.1, 0.3), candidate('b/cheap', 0.5, 2.5), candidate('c/mid', 1, 3), candidate('d/more', 3, 15), candidate('e/pricey', 10, 30), candidate('f/top', 15, 75)];

type Messages = MessageRequest['messages'];
const user = { role: 'user', content: 'Hi' } as const;
const system = (effort?: string | null): Messages[number] =>
  ({ role: 'system', content: 'Reminder.', ...(effort === undefined ? {} : { output_config: { effort } }) }) as Messages[number];

describe('the auto-router reads the effective effort', () => {
  it.each<[string, string | undefined, Messages, string | undefined, string]>([
    ['no effort', undefined, [user], undefined, 'a/cheapest'],
    ['top-level high', 'high', [user], 'high', 'b/cheap'],
    ['top-level low', 'low', [user], 'low', 'a/cheapest'],
    ["a system message's high (Claude Code on the 5.5 models)", undefined, [user, system('high')], 'high', 'b/cheap'],
    ["a system message's max", undefined, [user, system('max')], 'max', 'b/cheap'],
    ["top-level high, a later system message's low", 'high', [user, system('low')], 'low', 'a/cheapest'],
    ["top-level low, a system message's xhigh", 'low', [user, system('xhigh')], 'xhigh', 'b/cheap'],
    ['two system messages: the last wins (low)', undefined, [user, system('high'), system('low')], 'low', 'a/cheapest'],
    ['two system messages: the last wins (high)', undefined, [user, system('low'), system('high')], 'high', 'b/cheap'],
    ['a system message without output_config keeps the top-level high', 'high', [user, system()], 'high', 'b/cheap'],
    ['a system message with a null effort keeps the top-level high', 'high', [user, system(null)], 'high', 'b/cheap'],
  ])('%s', (_name, topLevel, messages, effort, chosen) => {
    const body = request({ model: AUTO_MODEL, messages, ...(topLevel === undefined ? {} : { output_config: { effort: topLevel } }) } as Parameters<typeof request>[0]);
    expect(requestedEffort(body)).toBe(effort);
    const signals = estimateDifficulty(body).signals.filter((signal) => signal.startsWith('effort'));
    const counted = effort === 'high' || effort === 'xhigh' || effort === 'max';
    expect(signals).toEqual(counted ? [`effort ${effort}`] : []);
    expect(chooseModel({ request: body, settings: { id: 'auto-router' }, candidates: CANDIDATES }).model).toBe(chosen);
  });
});
