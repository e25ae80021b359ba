/** A plain request's refused hops charged into its answer's cost, the calls listed as iterations, the counts the serving call's. */
import { describe, expect, it } from 'vitest';
import type { Usage } from '#src/api-types.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import { refusalCharge, withRefusalCharges } from '#src/messages/refusal-charges.ts';

const attemptOf = (model: string, input: number, output: number) => ({ model, pricing: { input, output } }) as unknown as Attempt;
const micro = (tokens: number, price: number) => (tokens * price) / 1_000_000;

describe('withRefusalCharges', () => {
  it('lists a refused hop its upstream does not bill with its counts, adding nothing to the cost', () => {
    const unbilled = refusalCharge(attemptOf('test/a', 1, 2), { input_tokens: 10, output_tokens: 0 }, false);
    const charged = withRefusalCharges({ input_tokens: 30, output_tokens: 3, cost: 0.5 } as Usage, 'test/c', [unbilled]);

    expect(unbilled.cost).toBe(0);
    expect(charged.cost).toBe(0.5);
    expect(charged.iterations?.[0]).toMatchObject({ type: 'message', model: 'test/a', input_tokens: 10, output_tokens: 0 });
  });

  it('is the usage itself without refusals', () => {
    const usage: Usage = { input_tokens: 5, output_tokens: 2, cost: 1 };
    expect(withRefusalCharges(usage, 'test/b', [])).toBe(usage);
  });

  it('adds two refused hops to the cost, each at its own prices, lists three calls with the served one last and keeps the counts', () => {
    const first = refusalCharge(attemptOf('test/a', 1, 2), { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 4 });
    const second = refusalCharge(attemptOf('test/b', 3, 4), { input_tokens: 20, output_tokens: 2 });
    const served: Usage = { input_tokens: 30, output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: 'standard', cost: 0.5, is_byok: false };
    const charged = withRefusalCharges(served, 'test/c', [first, second]);

    expect(charged).toMatchObject({ input_tokens: 30, output_tokens: 3, cache_read_input_tokens: 0, service_tier: 'standard', is_byok: false });
    expect(charged.cost).toBeCloseTo(0.5 + micro(14, 1) + micro(1, 2) + micro(20, 3) + micro(2, 4), 12);
    expect(charged.iterations?.map((entry) => `${entry.type}:${(entry as { model?: string }).model}:${(entry as { input_tokens?: number }).input_tokens}`)).toEqual([
      'message:test/a:10',
      'message:test/b:20',
      'fallback_message:test/c:30',
    ]);
  });

  it("keeps a served call's own iterations (Anthropic's compaction), its last one the fallback_message", () => {
    const refused = refusalCharge(attemptOf('test/a', 1, 2), { input_tokens: 10, output_tokens: 1 });
    const served = {
      input_tokens: 30,
      output_tokens: 3,
      iterations: [
        { type: 'compaction', input_tokens: 50, output_tokens: 8 },
        { type: 'message', input_tokens: 30, output_tokens: 3 },
      ],
      cost: 0.25,
    } as Usage;
    const charged = withRefusalCharges(served, 'test/c', [refused]);

    expect(charged.iterations?.map((entry) => entry.type)).toEqual(['message', 'compaction', 'fallback_message']);
    expect(charged).toMatchObject({ input_tokens: 30, output_tokens: 3 });
  });
});
