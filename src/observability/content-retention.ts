/**
 * Enforces the workspaces' content retention: a periodic sweep deletes stored prompts and completions whose
 * time has come (each record carries its own expiry, set from its workspace's retention when written).
 */
import type { Logger } from '#src/logger.ts';
import type { Database } from '#src/store/database.ts';
import { clearExpiredContent } from '#src/observability/generation-store.ts';

/** Starts the sweep every `intervalMs`; the returned function stops it. */
export function startContentRetention(database: Database, intervalMs: number, logger: Logger): () => void {
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      const cleared = await clearExpiredContent(database, new Date());
      if (cleared > 0) logger.info('deleted stored prompts and completions past their retention', { records: cleared });
    } catch (error) {
      logger.warn('the content retention sweep failed; it runs again later', { error });
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void sweep(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
