/**
 * The composition root: opens the store, loads the catalog and the master key, builds every service once,
 * and serves the express app on `config.host:config.port`. Nothing here runs per request.
 */
import type { Server } from 'node:http';
import { createServer } from '#src/http/node-http.ts';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { API_PREFIX, createApp } from '#src/app.ts';
import type { Config } from '#src/config.ts';
import { createLogger, type Logger } from '#src/logger.ts';
import { loadCatalog, type Catalog } from '#src/catalog/index.ts';
import { openDatabase, type Database } from '#src/store/database.ts';
import { createCredentialStack } from '#src/store/credential-stack.ts';
import { loadMasterKey } from '#src/byok/master-key.ts';
import { configureUpstreamHttp, closeUpstreamHttp } from '#src/providers/http-client.ts';
import { createAdapterRegistry } from '#src/providers/adapter-registry.ts';
import { createPinStore } from '#src/routing/sticky/redis-pin-store.ts';
import { StickySessions } from '#src/routing/sticky/sticky-sessions.ts';
import { createEndpointStats } from '#src/routing/redis-endpoint-stats.ts';
import { warmUpValidator } from '#src/http/warm-up-validator.ts';
import { createCatalogPlanView } from '#src/routing/catalog-plan-view.ts';
import { createRequestPlanner } from '#src/routing/plan-request.ts';
import { createObservability } from '#src/observability/index.ts';
import { chargedUsage } from '#src/observability/build-generation-record.ts';
import { createGenerationService } from '#src/observability/generation-service.ts';
import { startMetricsServer } from '#src/observability/metrics-server.ts';
import { listenFailure } from '#src/http/listen-failure.ts';
import { reportToPrimary, type ScrapeMetrics } from '#src/observability/cluster-metrics.ts';
import { createServerToolRuntime } from '#src/server-tools/index.ts';
import { RedisConnection } from '#src/redis/redis-connection.ts';
import { SpendLedger } from '#src/limits/spend-ledger.ts';
import { KeyLimiter } from '#src/limits/key-limiter.ts';
import { createKeyUsageReader } from '#src/limits/key-usage.ts';
import { createKeyService } from '#src/keys/key-service.ts';
import { CircuitBreaker } from '#src/routing/circuit-breaker/circuit-breaker.ts';
import { RedisCircuitShare } from '#src/routing/circuit-breaker/redis-circuit-share.ts';
import { withCircuitBreaker } from '#src/routing/circuit-breaker/breaker-planner.ts';
import { DrainTracker } from '#src/lifecycle/drain-tracker.ts';
import { shutDownGracefully } from '#src/lifecycle/graceful-shutdown.ts';
import { applyServerLimits, installClientErrorHandler, serverOptions, type ServerLimits } from '#src/http/server-limits.ts';
import { expressMessageClasses } from '#src/http/express-messages.ts';
import type { LookupAll } from '#src/server-tools/web-fetch/guarded-dispatcher.ts';
import { PassedPieces } from '#src/plugins/moderation/moderation-pieces.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** How to start a gateway; tests pass their own database, catalog and logger. */
export interface StartServerOptions {
  config: Config;
  logger?: Logger;
  /** An open database to serve from (tests); otherwise opened from the configuration. */
  database?: Database;
  catalog?: Catalog;
  /** Where `${VAR}` in the catalog file is looked up. */
  env?: NodeJS.ProcessEnv;
  /** How broadcast destinations' host names are resolved (tests); the system resolver otherwise. */
  resolveHost?: LookupAll;
  /**
   * The clock (epoch milliseconds) that endpoints' retirements are read against, in routing and `GET /models`
   * (tests place the gateway on a date); `Date.now` otherwise.
   */
  now?: () => number;
  /**
   * A worker of `SWITCHBOARD_WORKERS`: its metrics are reported to the primary, `GET /metrics` answers with
   * every worker's, and the metrics listener is the primary's.
   */
  clusterWorker?: boolean;
}

/** A running gateway. */
export interface RunningServer {
  /** `http://host:port` */
  origin: string;
  database: Database;
  /** Writes the generation records and key spending waiting in memory now (tests; shutdown does it too). */
  flushRecords(): Promise<void>;
  /**
   * Shuts down gracefully (src/lifecycle/graceful-shutdown.ts): stops accepting, lets the requests in flight
   * finish for up to `SWITCHBOARD_SHUTDOWN_GRACE_MS`, ends the rest, writes what waits, closes everything.
   */
  close(): Promise<void>;
  /** Ends the grace period now (a second signal): streams still open end with the shutdown error. */
  hurry(): void;
}

/** Starts the gateway and resolves once it accepts connections. */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { config } = options;
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  const env = options.env ?? process.env;
  const catalog = options.catalog ?? loadCatalog({ configPath: config.catalogConfigPath, env });
  configureUpstreamHttp({ headersTimeoutMs: config.upstreamHeadersTimeoutMs, bodyTimeoutMs: config.upstreamBodyTimeoutMs });

  // On PostgreSQL a missing master key is refused before connecting, not after migrating.
  if (config.databaseUrl && !options.database) loadMasterKey({ masterKey: config.masterKey, driver: 'postgres' });
  const ownsDatabase = !options.database;
  const database =
    options.database ??
    (await openDatabase({
      dataDir: config.dataDir,
      databaseUrl: config.databaseUrl,
      purpose: 'gateway',
      onBackgroundError: (error) => logger.warn('database background connection failed; reconnecting', { error }),
    }));
  const closers: (() => Promise<void> | void)[] = [];
  try {
    const stack = await createCredentialStack(database, {
      masterKey: config.masterKey,
      bootstrapManagementKey: config.bootstrapManagementKey,
      logger,
      isKnownProvider: (slug) => catalog.getProvider(slug) !== undefined,
    });
    closers.push(() => stack.close());
    const planView = createCatalogPlanView(catalog);
    const modelSlug = (name: string) => planView.model(name)?.slug;
    const observability = await createObservability({ config: config.observability, database, vault: stack.vault, cursors: stack.cursors, catalog, modelSlug, logger, version: VERSION, ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}) });
    // Set when the shutdown starts: the broadcast flush gets what is left of the grace period (within bounds).
    let graceEndsAt = 0;
    closers.push(() => observability.close(graceEndsAt - Date.now()));
    const registry = observability.metrics.registry;
    const scrapeMetrics: ScrapeMetrics = options.clusterWorker ? await reportToPrimary(registry) : async () => ({ text: await registry.metrics(), contentType: registry.contentType });
    if (config.observability.metricsPort !== undefined && !options.clusterWorker) {
      const metricsServer = await startMetricsServer({ port: config.observability.metricsPort, host: config.host, scrape: scrapeMetrics });
      closers.push(() => metricsServer.close());
      logger.info('metrics listening', { origin: metricsServer.origin });
    }
    // One Redis connection for pins, limits and circuits; the gateway starts (and serves) without it.
    const redis = config.redisUrl ? new RedisConnection({ url: config.redisUrl, logger, registry, commandTimeoutMs: config.redisCommandTimeoutMs }) : undefined;
    if (redis) {
      closers.push(() => redis.close());
      await redis.ready(2_000);
    }
    const pins = createPinStore({ redis, logger, maxEntries: config.stickyPinMaxEntries });
    closers.push(() => pins.close());
    // Thread pins apart, with their own bounds: session traffic must not push a thread's pin out of the process,
    // and pending tool results (a fetched page each) are bounded by bytes, not only by count.
    const threadPins = createPinStore({ redis, logger, maxEntries: config.threadPinMaxEntries, maxBytes: config.threadPinMaxBytes });
    closers.push(() => threadPins.close());
    // Samples travel on a publish/subscribe pair of its own (a subscribing connection serves nothing else).
    const stats = createEndpointStats({ redisUrl: config.redisUrl, logger });
    closers.push(() => stats.close());
    const ledger = new SpendLedger({ database, logger, flushIntervalMs: config.observability.recordFlushMs });
    ledger.start();
    closers.push(() => ledger.close(5_000));
    // A reservation never settled (its instance died) stops counting once its request could not run any more.
    const limiter = new KeyLimiter({ ledger, redis, logger, registry, holdMs: config.requestTimeoutMs + 60_000 });
    closers.push(() => limiter.close(5_000));
    // Settled from what the record shows: a loop that failed partway was still charged its finished steps.
    observability.addOutcomeListener((outcome) =>
      limiter.settle({ id: outcome.id, keyHash: outcome.keyHash, startedAt: outcome.startedAt, usage: chargedUsage(outcome) }),
    );
    const breaker = new CircuitBreaker({
      failures: config.circuitFailures,
      cooldownMs: config.circuitCooldownMs,
      logger,
      registry,
      // A circuit stays in Redis past its cool-down (half-open: a cool-down again, at least a minute), so an
      // instance started then knows it; a probe's success deletes it, its failure writes it anew.
      ...(redis ? { share: new RedisCircuitShare(redis, { halfOpenMs: Math.max(config.circuitCooldownMs, 60_000) }) } : {}),
    });
    closers.push(() => breaker.close());
    const drainTracker = new DrainTracker({ healthPath: `${API_PREFIX}/health` });
    // Cheap to create: its HTTP clients, MCP connections and heavy libraries come on a tool's first use.
    const toolRuntime = createServerToolRuntime({ config: catalog.serverTools, logger, clientVersion: VERSION });
    closers.push(() => toolRuntime.close());

    const { app, listener } = createApp({
      logger,
      authenticate: stack.authenticator.authenticate,
      bodyLimitBytes: config.bodyLimitBytes,
      drainTracker,
      validateResponses: config.validateResponses,
      requestTimeoutMs: config.requestTimeoutMs,
      regionalHosts: config.regionalHosts,
      version: VERSION,
      isDraining: () => drainTracker.draining,
      streamGuard: drainTracker,
      drain: drainTracker,
      catalog,
      modelSlug,
      ...(options.now ? { now: options.now } : {}),
      byok: stack.byok,
      keys: createKeyService(database, createKeyUsageReader({ ledger, store: () => limiter.currentStore(), shared: () => redis?.available() ?? false }), stack.cursors),
      cursors: stack.cursors,
      messages: {
        planner: withCircuitBreaker(
          createRequestPlanner({
            view: planView,
            credentials: stack.routingCredentials,
            sessions: new StickySessions({ store: pins, threadStore: threadPins, ttlMs: config.stickySessionTtlMs, threadTtlMs: config.threadPinTtlMs, logger }),
            stats,
            ...(options.now ? { now: options.now } : {}),
          }),
          breaker,
        ),
        vault: stack.routingCredentials,
        adapterFor: createAdapterRegistry(),
        serverTools: { config: catalog.serverTools, runtime: toolRuntime, pingMs: config.toolLoopPingMs },
        logger,
        plugins: { config: catalog.plugins, serverTools: catalog.serverTools, toolRuntime, catalog, moderationClients: new Map(), moderationPassed: new PassedPieces() },
        admission: limiter,
      },
      observer: observability.observer,
      generations: createGenerationService(database, { cursors: stack.cursors, modelAliases: (slug) => planView.aliasesOf(slug) }),
      workspaceSettings: observability.settings,
      destinations: observability.destinations,
      metrics: observability.metrics,
      scrapeMetrics,
    });

    await warmUpValidator(listener, '/api/v1/health');
    const limits: ServerLimits = {
      headersTimeoutMs: config.headersTimeoutMs,
      bodyTimeoutMs: config.bodyTimeoutMs,
      keepAliveTimeoutMs: config.keepAliveTimeoutMs,
      maxHeaderCount: config.maxHeaderCount,
    };
    const server = createServer({ ...serverOptions(limits), ...expressMessageClasses(app) }, listener);
    applyServerLimits(server, limits);
    installClientErrorHandler(server, limits, logger);
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) => reject(listenFailure(error, config, 'HOST, PORT')));
      server.listen(config.port, config.host, () => resolve());
    });
    const address = server.address() as AddressInfo;
    const origin = `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
    logger.info('switchboard listening', { origin, database: database.driver, models: catalog.models.length, redis: Boolean(config.redisUrl) });
    let closing: Promise<void> | undefined;
    return {
      origin,
      database,
      flushRecords: async () => {
        await observability.flush();
        await ledger.flush();
      },
      close: () => {
        if (!closing) graceEndsAt = Date.now() + config.shutdownGraceMs;
        return (closing ??= shutDownGracefully({
          server,
          tracker: drainTracker,
          graceMs: config.shutdownGraceMs,
          logger,
          closeServices: async () => {
            await runClosers(closers);
            await closeUpstreamHttp();
            if (ownsDatabase) await database.close();
          },
        }));
      },
      hurry: () => drainTracker.passDeadline(),
    };
  } catch (error) {
    await runClosers(closers);
    if (ownsDatabase) await database.close();
    throw error;
  }
}

async function runClosers(closers: (() => Promise<void> | void)[]): Promise<void> {
  for (const close of closers.reverse()) await close();
}
