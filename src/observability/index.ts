/**
 * Observability, assembled once at start: the directory of workspace policies and destinations, the record
 * queue, the metrics, the pipeline and the observer the `/messages` route calls, the services behind the
 * observability routes, and (loaded on first use) the broadcaster.
 */
import type { ObservabilityConfig } from '#src/config.ts';
import type { Logger } from '#src/logger.ts';
import type { Database } from '#src/store/database.ts';
import type { KeyVault } from '#src/byok/key-vault.ts';
import type { CursorBinder } from '#src/http/cursor-binding.ts';
import type { Catalog } from '#src/catalog/index.ts';
import { GenerationObserver } from '#src/observability/generation-observer.ts';
import { GenerationPipeline } from '#src/observability/generation-pipeline.ts';
import type { GenerationOutcome } from '#src/observability/generation-outcome.ts';
import { RecordQueue } from '#src/observability/record-queue.ts';
import { insertGenerations } from '#src/observability/generation-store.ts';
import { GatewayMetrics } from '#src/observability/gateway-metrics.ts';
import { ObservabilityDirectory } from '#src/observability/observability-directory.ts';
import { startContentRetention } from '#src/observability/content-retention.ts';
import { createWorkspaceSettingsService, type WorkspaceSettingsService } from '#src/observability/workspace-settings-service.ts';
import { createDestinationService, type DestinationService } from '#src/observability/destinations/destination-service.ts';
import { shutdownFlushBudgetMs, type Broadcaster } from '#src/observability/broadcast/broadcast-types.ts';
import { createDestinationNetwork, destinationUrlProblem } from '#src/observability/destinations/destination-address.ts';
import type { LookupAll } from '#src/server-tools/web-fetch/guarded-dispatcher.ts';

/** Everything observability gives the rest of the gateway. */
export interface Observability {
  observer: GenerationObserver;
  metrics: GatewayMetrics;
  settings: WorkspaceSettingsService;
  destinations: DestinationService;
  database: Database;
  /**
   * Hands every request's outcome to `listener` too, synchronously as it is observed (the key limits settle
   * from it); the listener must return at once.
   */
  addOutcomeListener(listener: (outcome: GenerationOutcome) => void): void;
  /** Writes what is queued (tests, shutdown). */
  flush(): Promise<void>;
  /**
   * Closes at shutdown, once no request is in flight: the last outcomes become records and broadcasts, then
   * the records are written while the destinations flush (for what is left of `remainingGraceMs`, see
   * shutdownFlushBudgetMs).
   */
  close(remainingGraceMs?: number): Promise<void>;
}

/** What observability is built from. */
export interface ObservabilityOptions {
  config: ObservabilityConfig;
  database: Database;
  vault: KeyVault;
  /** Binds the destination list's cursors to an account. */
  cursors: CursorBinder;
  catalog: Catalog;
  /** The catalog slug of a request's model name, aliases included (the routing view's); without it, slugs only. */
  modelSlug?: (name: string) => string | undefined;
  logger: Logger;
  version: string;
  /** How destination host names are resolved (tests map names to addresses); the system resolver otherwise. */
  resolveHost?: LookupAll;
}

const BROADCASTER_MODULE = '#src/observability/broadcast/broadcaster.ts';

/** Builds and starts observability. */
export async function createObservability(options: ObservabilityOptions): Promise<Observability> {
  const { config, database, logger } = options;
  const network = createDestinationNetwork(config.privateDestinations, options.resolveHost);
  let broadcaster: Broadcaster | undefined;
  let queue: RecordQueue | undefined;
  const metrics = new GatewayMetrics({
    modelSlug: options.modelSlug ?? ((name) => options.catalog.getModel(name)?.slug),
    isKnownProvider: (slug) => options.catalog.getProvider(slug) !== undefined,
    depths: { records: () => queue?.depth ?? 0, broadcast: () => broadcaster?.depths() ?? {} },
  });
  if (config.records) {
    queue = new RecordQueue(
      (records) => insertGenerations(database, records),
      { limit: config.recordQueueLimit, batchSize: 500, flushIntervalMs: config.recordFlushMs, retryBaseMs: config.recordFlushMs, maxBackoffMs: 30_000, writeTimeoutMs: 15_000 },
      logger,
      { written: (count) => metrics.recordsWritten.inc(count), dropped: (count, reason) => metrics.recordsDropped.inc({ reason }, count) },
    );
    queue.start();
  }

  const directory = new ObservabilityDirectory({ database, vault: options.vault, fileDestinations: options.catalog.fileDestinations, logger });
  directory.onLoaded(async (destinations) => {
    if (destinations.length === 0 && !broadcaster) return;
    if (!broadcaster) {
      const module = (await import(BROADCASTER_MODULE)) as typeof import('#src/observability/broadcast/broadcaster.ts');
      broadcaster ??= module.createBroadcaster(
        { queueLimit: config.broadcastQueueLimit, timeoutMs: config.broadcastTimeoutMs, retryBaseMs: config.broadcastRetryMs, retries: 3, version: options.version, network },
        { sent: (kind, count) => metrics.broadcastSent.inc({ kind }, count), dropped: (kind, reason, count) => metrics.broadcastDropped.inc({ kind, reason }, count) },
        logger,
      );
    }
    broadcaster.sync(destinations);
  });
  const changed = async () => {
    await directory.refresh();
    await database.changes.publish({ kind: 'observability' });
  };
  const destinations = createDestinationService({ database, vault: options.vault, cursors: options.cursors, changed, endpointProblem: (endpoint) => destinationUrlProblem(endpoint, network.allowlist) });
  // Rows written before query values (or user-info after extra slashes) were sealed hold them in clear; sealed once, before anything reads them.
  await destinations
    .sealClearEndpoints()
    .then((sealed) => sealed > 0 && logger.info('sealed the query of destination endpoints stored in clear', { destinations: sealed }))
    .catch((error: unknown) => logger.warn('destination endpoints stored in clear could not be sealed; the next start tries again', { error }));
  await directory.start();
  const unsubscribe = database.changes.subscribe((event) => {
    if (event.kind === 'observability' || event.kind === 'reset') void directory.refresh();
  });
  const stopRetention = startContentRetention(database, config.contentSweepMs, logger);

  const pipeline = new GenerationPipeline({ directory, queue, metrics, broadcaster: () => broadcaster, logger });
  const listeners: ((outcome: GenerationOutcome) => void)[] = [];
  const sink = (outcome: GenerationOutcome) => {
    for (const listener of listeners) {
      try {
        listener(outcome);
      } catch (error) {
        logger.error('an outcome listener failed', { generation_id: outcome.id, error });
      }
    }
    pipeline.accept(outcome);
  };
  return {
    observer: new GenerationObserver(sink, (workspaceId) => directory.policyFor(workspaceId).capturesContent),
    addOutcomeListener: (listener) => void listeners.push(listener),
    metrics,
    settings: createWorkspaceSettingsService({ database, changed }),
    destinations,
    database,
    async flush() {
      pipeline.drain();
      await queue?.flush();
    },
    async close(remainingGraceMs = 0) {
      unsubscribe();
      stopRetention();
      directory.stop();
      // The outcomes not yet handled go to the record queue and the destinations' channels before either closes.
      pipeline.drain();
      await Promise.all([queue?.close(5_000), broadcaster?.close(shutdownFlushBudgetMs(remainingGraceMs))]);
    },
  };
}
