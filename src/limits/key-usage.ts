/**
 * The usage `GET /keys` shows next to each key's limits: the spending of its current period (Redis's live
 * count when the key has a credit limit and Redis is there, else the database's ledger plus what this
 * instance has not written yet), what is left of the limit, and the counts of the rate limits it has.
 */
import type { KeyUsage } from '#src/api-types.ts';
import type { KeyLimits, LimitReset } from '#src/limits/key-limits.ts';
import { limitPeriod, type LimitPeriod } from '#src/limits/limit-period.ts';
import type { LimitStore } from '#src/limits/limit-store.ts';
import type { SpendLedger } from '#src/limits/spend-ledger.ts';

/** One key as its usage is read. */
export interface UsageSubject {
  hash: string;
  limitReset: LimitReset | null;
  limits: KeyLimits | null;
}

/** Reads the usage of a page of keys. */
export interface KeyUsageReader {
  usageOf(subjects: readonly UsageSubject[]): Promise<Map<string, KeyUsage>>;
}

/** Builds the reader; `store` gives the live counts (the key limiter's current store), absent in the CLI. */
export function createKeyUsageReader(options: { ledger: Pick<SpendLedger, 'spendOf'>; store?: () => LimitStore; shared?: () => boolean; now?: () => number }): KeyUsageReader {
  const now = options.now ?? Date.now;
  return {
    async usageOf(subjects) {
      const nowMs = now();
      const periods = new Map<string, { period: LimitPeriod; hashes: string[] }>();
      const periodOf = new Map<string, LimitPeriod>();
      for (const subject of subjects) {
        const period = limitPeriod(subject.limitReset, nowMs);
        periodOf.set(subject.hash, period);
        const group = periods.get(period.id) ?? { period, hashes: [] };
        group.hashes.push(subject.hash);
        periods.set(period.id, group);
      }
      const spent = new Map<string, number>();
      for (const { period, hashes } of periods.values()) {
        for (const [hash, cost] of await options.ledger.spendOf(hashes, period)) spent.set(hash, cost);
      }
      // The live counts of every limited key of the page, read together (one round trip each, in parallel).
      const lives = await Promise.all(
        subjects.map((subject) => {
          const limits = subject.limits;
          if (!limits || !options.store) return undefined;
          return options.store().usage({
            keyHash: subject.hash,
            period: limits.creditLimit !== null && options.shared?.() ? (periodOf.get(subject.hash) ?? null) : null,
            requests: limits.requestsPerMinute !== null,
            tokens: limits.tokensPerMinute !== null,
            streams: limits.maxConcurrentStreams !== null,
            nowMs,
          });
        }),
      );
      const usage = new Map<string, KeyUsage>();
      for (const [index, subject] of subjects.entries()) {
        const period = periodOf.get(subject.hash) as LimitPeriod;
        const limits = subject.limits;
        const live = lives[index];
        const cost = live?.spent ?? spent.get(subject.hash) ?? 0;
        const creditLimit = limits?.creditLimit ?? null;
        usage.set(subject.hash, {
          cost,
          limit_remaining: creditLimit === null ? null : Math.max(0, creditLimit - cost),
          period_start: period.start?.toISOString() ?? null,
          resets_at: period.end?.toISOString() ?? null,
          requests_last_minute: live?.requests ?? null,
          tokens_last_minute: live?.tokens ?? null,
          concurrent_streams: live?.streams ?? null,
        });
      }
      return usage;
    },
  };
}
