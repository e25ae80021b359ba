/**
 * Moving counts between Redis and this process when Redis goes away and comes back, so an outage neither
 * forgets nor doubles what was counted (failing open, with an error bounded by one limit per instance):
 * - when the limiter first counts in process during an outage, the holds this instance took in Redis and
 *   has not settled yet (reservations, stream slots) are counted in process too (`mirrorOpenHolds`);
 * - when Redis returns, what the process counted meanwhile is added to Redis's counts (`carryIntoRedis`): the
 *   request and token buckets still in the window, and the holds still open: those taken in process are
 *   from then on held (and settled) in Redis, and those taken in Redis before are taken again (a no-op when
 *   Redis kept them, their slots back when it restarted empty). Costs settled in process during the outage reach Redis's spending through the
 *   settlement replay (settlement-replay.ts), as before.
 * The per-minute windows the process counts in start from what Redis returned with each key's last admission
 * here (seen-windows.ts), other instances' requests until then included; what they admit during the outage
 * is not known here: each instance then allows up to what the limit has left of its own.
 */
import type { Hold } from '#src/limits/limit-store.ts';
import type { MemoryLimitStore } from '#src/limits/memory-limit-store.ts';
import type { RedisLimitStore } from '#src/limits/redis-limit-store.ts';

/** A hold as the limiter keeps it: the store that counts it, when it stops counting, and a carry-over in flight. */
export interface KeptHold extends Hold {
  heldBy: 'redis' | 'process';
  expiresAtMs: number;
  /** Set while the hold is being carried into Redis: its settlement waits for it. */
  carrying?: Promise<void> | undefined;
}

/** Counts this instance's open Redis holds in process (Redis has just gone away). */
export function mirrorOpenHolds(memory: MemoryLimitStore, holds: ReadonlyMap<string, KeptHold>, nowMs: number): void {
  for (const hold of holds.values()) if (hold.heldBy === 'redis' && hold.expiresAtMs > nowMs) memory.mirror(hold, hold.expiresAtMs);
}

/**
 * Carries what the process counted into Redis, key by key (one script each). The holds carried are marked as
 * held in Redis at once (with the seed Redis reports once the script has run), so a settlement that comes
 * meanwhile waits and then settles in Redis. A key whose script fails stays counted in process, its holds
 * too; returns whether every key was carried. `seeds` learns each period's seed. `settling(id)`: a settlement
 * of that id waits to be replayed (an admission whose reply was lost, made again in process under the same
 * id): such a hold is not carried, or the replay would release it in Redis and its own settlement count nothing.
 */
export async function carryIntoRedis(memory: MemoryLimitStore, shared: RedisLimitStore, holds: ReadonlyMap<string, KeptHold>, seeds: Map<string, string>, nowMs: number, settling: (id: string) => boolean): Promise<boolean> {
  const byKey = new Map<string, KeptHold[]>();
  for (const keyHash of memory.keyHashes()) byKey.set(keyHash, []);
  for (const hold of holds.values()) {
    if (hold.carrying || hold.expiresAtMs <= nowMs || settling(hold.id)) continue;
    const list = byKey.get(hold.keyHash) ?? [];
    list.push(hold);
    byKey.set(hold.keyHash, list);
  }
  const carried = await Promise.all([...byKey].map(([keyHash, open]) => carryKey(memory, shared, keyHash, open, seeds, nowMs)));
  return carried.every(Boolean);
}

function carryKey(memory: MemoryLimitStore, shared: RedisLimitStore, keyHash: string, open: KeptHold[], seeds: Map<string, string>, nowMs: number): Promise<boolean> {
  const periodId = open.find((hold) => hold.credit)?.credit?.period.id ?? 'none';
  const counts = memory.windowCounts(keyHash, nowMs);
  const taken = open.filter((hold) => hold.heldBy === 'process');
  const done = (async () => {
    try {
      const seed = await shared.carry({ keyHash, periodId, nowMs, ...counts, holds: open.map((hold) => ({ hold, expiresAtMs: hold.expiresAtMs })) });
      if (seed && periodId !== 'none') seeds.set(`${keyHash}|${periodId}`, seed);
      // A cost settled into a seed Redis does not have is not counted twice: the database seeds it later.
      for (const hold of taken) hold.seed = hold.credit?.period.id === periodId ? seed : null;
      memory.forget(keyHash);
      return true;
    } catch {
      for (const hold of taken) hold.heldBy = 'process';
      return false;
    }
  })();
  const carrying = done.then(() => {
    for (const hold of taken) hold.carrying = undefined;
  });
  // Marked before the script's reply: a settlement meanwhile waits for it, then settles where the hold is.
  for (const hold of taken) {
    hold.heldBy = 'redis';
    hold.carrying = carrying;
  }
  return done;
}
