/**
 * The composition root: opens the store, loads the catalog and the master key, builds every service once,
 * and serves the express app on `config.host:config.port`. Nothing here runs per request.
 */
import type { Server } from 'node:http';
import { createServer } from '#src/http/node-http.ts';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { createApp } from '#src/app.ts';
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
import { createGenerationService } from '#src/observability/generation-service.ts';
import { startMetricsServer } from '#src/observability/metrics-server.ts';
import { createServerToolRuntime } from '#src/server-tools/index.ts';

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
}

/** A running gateway. */
export interface RunningServer {
  /** `http://host:port` */
  origin: string;
  database: Database;
  /** Writes the generation records waiting in the queue now (tests; shutdown does it too). */
  flushRecords(): Promise<void>;
  close(): Promise<void>;
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
    const pins = createPinStore({ redisUrl: config.redisUrl, logger });
    closers.push(() => pins.close());
    const stats = createEndpointStats({ redisUrl: config.redisUrl, logger });
    closers.push(() => stats.close());
    const observability = await createObservability({ config: config.observability, database, vault: stack.vault, catalog, logger, version: VERSION });
    closers.push(() => observability.close());
    if (config.observability.metricsPort !== undefined) {
      const metricsServer = await startMetricsServer({ port: config.observability.metricsPort, host: config.host, registry: observability.metrics.registry });
      closers.push(() => metricsServer.close());
      logger.info('metrics listening', { origin: metricsServer.origin });
    }
    // Cheap to create: its HTTP clients, MCP connections and heavy libraries come on a tool's first use.
    const toolRuntime = createServerToolRuntime({ config: catalog.serverTools, logger, clientVersion: VERSION });
    closers.push(() => toolRuntime.close());

    const app = createApp({
      logger,
      authenticate: stack.authenticator.authenticate,
      bodyLimitBytes: config.bodyLimitBytes,
      validateResponses: config.validateResponses,
      requestTimeoutMs: config.requestTimeoutMs,
      regionalHosts: config.regionalHosts,
      version: VERSION,
      catalog,
      byok: stack.byok,
      keys: stack.keys,
      messages: {
        planner: createRequestPlanner({
          view: createCatalogPlanView(catalog),
          credentials: stack.routingCredentials,
          sessions: new StickySessions({ store: pins, ttlMs: config.stickySessionTtlMs, logger }),
          stats,
        }),
        vault: stack.routingCredentials,
        adapterFor: createAdapterRegistry(),
        serverTools: { config: catalog.serverTools, runtime: toolRuntime },
        logger,
        plugins: { config: catalog.plugins, serverTools: catalog.serverTools, toolRuntime, catalog, moderationClients: new Map() },
      },
      observer: observability.observer,
      generations: createGenerationService(database),
      workspaceSettings: observability.settings,
      destinations: observability.destinations,
      metrics: observability.metrics,
    });

    await warmUpValidator(app, '/api/v1/health');
    const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 0 }, app);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    const address = server.address() as AddressInfo;
    const origin = `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
    logger.info('switchboard listening', { origin, database: database.driver, models: catalog.models.length, redis: Boolean(config.redisUrl) });
    return { origin, database, flushRecords: () => observability.flush(), close: () => shutdown(server, closers, ownsDatabase ? database : undefined) };
  } catch (error) {
    await runClosers(closers);
    if (ownsDatabase) await database.close();
    throw error;
  }
}

async function runClosers(closers: (() => Promise<void> | void)[]): Promise<void> {
  for (const close of closers.reverse()) await close();
}

async function shutdown(server: Server, closers: (() => Promise<void> | void)[], database: Database | undefined): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  await runClosers(closers);
  await closeUpstreamHttp();
  if (database) await database.close();
}
