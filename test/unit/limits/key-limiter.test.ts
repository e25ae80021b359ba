import { describe, expect, it, vi } from 'vitest';
import { KeyLimiter } from '#src/limits/key-limiter.ts';
import type { AdmissionContext, AdmissionPlan } from '#src/limits/key-limiter-types.ts';
import { createLogger } from '#src/logger.ts';
import type { SpendLedger } from '#src/limits/spend-ledger.ts';

const KEY = 'h'.repeat(64);
const PLAN: AdmissionPlan = { request: { max_tokens: 100, messages: [{ role: 'user', content: 'Hello there' }], stream: true }, attempts: [{ pricing: { input: 1_000, output: 2_000, cache_read: null, cache_write: null } }] };

function ledger(spent = 0) {
  const added: [string, string, number][] = [];
  const periodSpend = vi.fn(async () => spent);
  const fake = { add: (hash: string, day: string, cost: number) => void added.push([hash, day, cost]), periodSpend } as unknown as SpendLedger;
  return { fake, added, periodSpend };
}

function context(id: string, limits: AdmissionContext['caller']['limits']): AdmissionContext {
  return { caller: { keyHash: KEY, limits }, generationId: id };
}

describe('KeyLimiter in process', () => {
  it('costs a key without limits nothing but the ledger entry of its spending', async () => {
    const { fake, added, periodSpend } = ledger();
    const limiter = new KeyLimiter({ ledger: fake, redis: undefined, logger: createLogger({ level: 'error' }), holdMs: 60_000 });
    const admit = vi.spyOn(limiter.memory, 'admit');
    const admitNow = vi.spyOn(limiter.memory, 'admitNow');
    await limiter.admit(PLAN, context('g1', null));
    await limiter.admit(PLAN, context('g2', undefined));
    // A key whose only limit is on streams pays nothing for a JSON request either.
    await limiter.admit({ ...PLAN, request: { ...PLAN.request, stream: false } }, context('g3', { creditLimit: null, limitReset: null, requestsPerMinute: null, tokensPerMinute: null, maxConcurrentStreams: 2 }));
    expect(admit).not.toHaveBeenCalled();
    expect(admitNow).not.toHaveBeenCalled();
    expect(periodSpend).not.toHaveBeenCalled();
    expect(limiter.openHolds).toBe(0);
    limiter.settle({ id: 'g1', keyHash: KEY, startedAt: Date.parse('2025-11-21T10:00:00Z'), usage: { input_tokens: 10, output_tokens: 5, cost: 0.02 } });
    expect(added).toEqual([[KEY, '2025-11-21', 0.02]]);
  });

  it('seeds a period from the ledger once, reserves, and settles to the real cost', async () => {
    const { fake, periodSpend } = ledger(0.5);
    const limiter = new KeyLimiter({ ledger: fake, redis: undefined, logger: createLogger({ level: 'error' }), holdMs: 60_000 });
    const limits = { creditLimit: 0.8, limitReset: 'monthly' as const, requestsPerMinute: null, tokensPerMinute: null, maxConcurrentStreams: null };
    // Worst case: (3 * 1000 + 100 * 2000) / 1e6 = 0.203.
    await limiter.admit(PLAN, context('a', limits));
    await limiter.admit(PLAN, context('b', limits));
    // 0.5 spent and 0.406 held: the rest is held by requests in progress, so "retry shortly".
    await expect(limiter.admit(PLAN, context('c', limits))).rejects.toMatchObject({ status: 429 });
    expect(periodSpend).toHaveBeenCalledTimes(1);
    expect(limiter.openHolds).toBe(2);
    limiter.settle({ id: 'a', keyHash: KEY, startedAt: Date.now(), usage: { cost: 0.01 } });
    limiter.settle({ id: 'b', keyHash: KEY, startedAt: Date.now(), usage: { cost: 0.01 } });
    expect(limiter.openHolds).toBe(0);
    await limiter.admit(PLAN, context('c', limits));
  });

  it('reserves every call of a moderation screening, with the request or on its own', async () => {
    const { fake } = ledger(0);
    const limiter = new KeyLimiter({ ledger: fake, redis: undefined, logger: createLogger({ level: 'error' }), holdMs: 60_000 });
    const limits = { creditLimit: 0.4, limitReset: 'monthly' as const, requestsPerMinute: null, tokensPerMinute: null, maxConcurrentStreams: null };
    // 0.203 each: the request and two screening calls hold 0.609 of 0.4, so nothing more fits, not even a screening call.
    await limiter.admit(PLAN, context('a', limits), [PLAN, PLAN]);
    await expect(limiter.admitScreening([PLAN], context('b', limits))).rejects.toMatchObject({ status: 429 });
    limiter.settle({ id: 'a', keyHash: KEY, startedAt: Date.now(), usage: { cost: 0 } });
    // Two calls on their own hold 0.406 of 0.4 (one alone would leave room): a request does not fit beside them.
    expect(await limiter.admitScreening([PLAN, PLAN], context('c', limits))).toBe('c:moderation');
    await expect(limiter.admit(PLAN, context('d', limits))).rejects.toMatchObject({ status: 429 });
    expect(await limiter.admitScreening([], context('e', limits))).toBeUndefined();
  });

  it('fails open when the database cannot tell the period spending', async () => {
    const { fake, periodSpend } = ledger();
    periodSpend.mockRejectedValue(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const lines: string[] = [];
    const limiter = new KeyLimiter({ ledger: fake, redis: undefined, logger: createLogger({ level: 'warn', sink: (line) => lines.push(line) }), holdMs: 60_000 });
    await limiter.admit(PLAN, context('a', { creditLimit: 1, limitReset: null, requestsPerMinute: null, tokensPerMinute: null, maxConcurrentStreams: null }));
    expect(lines.join('\n')).toContain('credit limit counted from this instance alone');
  });

  it('settles a moderation screening at once and the request only for what its answer adds, limited key or not', async () => {
    const { fake, added } = ledger();
    const limiter = new KeyLimiter({ ledger: fake, redis: undefined, logger: createLogger({ level: 'error' }), holdMs: 60_000 });
    const limits = { creditLimit: 5, limitReset: null, requestsPerMinute: 10, tokensPerMinute: null, maxConcurrentStreams: null };
    const startedAt = Date.now();
    const costs = () => added.map(([, , cost]) => cost).filter((cost) => cost > 0);
    // A plain request reserves its screening with itself; a tool loop's screening has a hold of its own.
    for (const [id, keyLimits] of [['limited', limits], ['unlimited', null]] as const) {
      await limiter.admit(PLAN, context(id, keyLimits), [PLAN]);
      limiter.settleScreening(context(id, keyLimits), undefined, { cost: 0.03, tokens: 100 });
      // The answer's usage.cost is the screening plus the model.
      limiter.settle({ id, keyHash: KEY, startedAt, usage: { input_tokens: 10, output_tokens: 5, cost: 0.03 + 0.02 } });
    }
    const holdId = await limiter.admitScreening([PLAN], context('loop', limits));
    expect(holdId).toBe('loop:moderation');
    limiter.settleScreening(context('loop', limits), holdId, { cost: 0.03, tokens: 100 });
    limiter.settle({ id: 'loop', keyHash: KEY, startedAt, usage: { cost: 0.03 } });
    expect(costs()).toEqual([0.03, expect.closeTo(0.02, 12), 0.03, expect.closeTo(0.02, 12), 0.03]);
    expect(limiter.openHolds).toBe(0);
    // The store counted the screening too: 0.03 + 0.02 + 0.03 spent of 5.
    expect((await limiter.memory.usage({ keyHash: KEY, period: null, requests: true, tokens: false, streams: false, nowMs: Date.now() })).requests).toBe(2);
    // A request that fails after its screening has spent the screening, nothing more.
    await limiter.admit(PLAN, context('failed', limits), [PLAN]);
    limiter.settleScreening(context('failed', limits), undefined, { cost: 0.03, tokens: 100 });
    limiter.settle({ id: 'failed', keyHash: KEY, startedAt, usage: null });
    expect(costs()).toHaveLength(6);
    expect(limiter.openHolds).toBe(0);
  });

  it('checks a tool loop by the admission\'s rules, seeding once, and takes nothing: no hold, no request, no stream slot', async () => {
    const { fake, periodSpend } = ledger(0.5);
    const limiter = new KeyLimiter({ ledger: fake, redis: undefined, logger: createLogger({ level: 'error' }), holdMs: 60_000 });
    const check = vi.spyOn(limiter.memory, 'check');
    await limiter.checkLoop({ stream: true }, context('free', null));
    expect(check).not.toHaveBeenCalled();

    const limits = { creditLimit: 5, limitReset: null, requestsPerMinute: 1, tokensPerMinute: null, maxConcurrentStreams: 1 };
    for (const id of ['l1', 'l2', 'l3']) await limiter.checkLoop({ stream: true }, context(id, limits));
    expect(periodSpend).toHaveBeenCalledTimes(1);
    expect(limiter.openHolds).toBe(0);
    const usage = () => limiter.memory.usage({ keyHash: KEY, period: null, requests: true, tokens: false, streams: true, nowMs: Date.now() });
    expect(await usage()).toMatchObject({ requests: 0, streams: 0 });
    // Once a plain stream holds the one slot (and the one request), the check refuses as its admission would.
    await limiter.admit(PLAN, context('plain', limits));
    await expect(limiter.checkLoop({ stream: true }, context('l4', limits))).rejects.toMatchObject({ status: 429, message: expect.stringContaining('concurrent streams') });
    await expect(limiter.checkLoop({ stream: false }, context('l5', limits))).rejects.toMatchObject({ status: 429, message: expect.stringContaining('1 requests per minute') });
    expect(await usage()).toMatchObject({ requests: 1, streams: 1 });
  });
});
