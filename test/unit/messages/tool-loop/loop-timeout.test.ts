import { describe, expect, it } from 'vitest';
import { ShuttingDownError, TimeBudgetSpent, ToolLoopTimeoutError } from '#src/errors.ts';
import { loopTimeout, type LoopActivity } from '#src/messages/tool-loop/loop-timeout.ts';
import type { Attempt } from '#src/routing/attempt.ts';

const attempt = { model: 'test/claude', provider: { displayName: 'Alpha Cloud' } } as unknown as Attempt;

function aborted(reason: unknown): AbortSignal {
  const controller = new AbortController();
  controller.abort(reason);
  return controller.signal;
}

describe('loopTimeout', () => {
  it.each<[string, LoopActivity | null, string]>([
    ['before any call', null, "step 1, before the model was called"],
    ['a model call', { kind: 'model', step: 3, attempt }, 'step 3, while test/claude on Alpha Cloud was answering'],
    ['one tool, called twice', { kind: 'tools', step: 2, tools: ['web_fetch', 'web_fetch'] }, 'step 2, while the gateway tool web_fetch ran'],
    ['two tools', { kind: 'tools', step: 1, tools: ['web_search', 'datetime'] }, 'step 1, while the gateway tools web_search, datetime ran'],
  ])('names %s', (_case, activity, what) => {
    const cause = new Error('aborted');
    const error = loopTimeout(aborted(new TimeBudgetSpent(1500)), activity, cause);
    expect(error).toBeInstanceOf(ToolLoopTimeoutError);
    expect(error).toMatchObject({ status: 504, publicMessage: `The request exceeded its time budget of 1500 ms during the tool loop's ${what}`, cause });
  });

  it.each([
    ['a signal still running', new AbortController().signal],
    ['a client that left', aborted(new DOMException('The client disconnected', 'AbortError'))],
    ['a shutdown', aborted(new ShuttingDownError())],
  ])('is null for %s', (_case, signal) => {
    expect(loopTimeout(signal, null)).toBeNull();
  });

  it('keeps the reason a TimeoutError, as fetch and undici read it', () => {
    expect(new TimeBudgetSpent(10)).toMatchObject({ name: 'TimeoutError', message: 'The request exceeded its time budget of 10 ms', budgetMs: 10 });
  });
});
