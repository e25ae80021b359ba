/**
 * Gateway configuration, read once from the environment at start. Nothing here is re-read per request.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { isResidencyRegion, type ResidencyRegion } from '#src/data-region.ts';
import { parseAllowlistEntry, type AllowlistEntry } from '#src/server-tools/web-fetch/address-policy.ts';
import { checkDatabaseUrl, checkRedisUrl } from '#src/config-urls.ts';

/** Everything the gateway reads from its environment. */
export interface Config {
  host: string;
  port: number;
  /** PGlite data directory (embedded mode), default `./.switchboard`. */
  dataDir: string;
  /** PostgreSQL connection string; when set, PGlite is not used. */
  databaseUrl: string | undefined;
  /** Redis connection string for state shared between instances; in-process when unset. */
  redisUrl: string | undefined;
  /** How long one command on the shared Redis connection may take before that work is done in process instead. */
  redisCommandTimeoutMs: number;
  /** YAML file extending the built-in catalog and providers. */
  catalogConfigPath: string | undefined;
  masterKey: string | undefined;
  bootstrapManagementKey: string | undefined;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Largest accepted request body (images and PDFs travel base64-encoded). */
  bodyLimitBytes: number;
  /** Validate responses against the spec (tests); costs time per request. */
  validateResponses: boolean;
  /** Upper bound on the whole of one `/messages` request, all attempts included. */
  requestTimeoutMs: number;
  /** Per-attempt time to connect and receive response headers from an upstream. */
  upstreamHeadersTimeoutMs: number;
  /** Per-attempt time allowed between two chunks of an upstream body. */
  upstreamBodyTimeoutMs: number;
  /** How often a streamed tool loop sends a `ping` while a step's gateway tools run. */
  toolLoopPingMs: number;
  /** Idle time after which a sticky-session pin expires. */
  stickySessionTtlMs: number;
  /**
   * How long a message thread stays pinned to the account that holds it, from its last answered turn: longer
   * than a session pin, as a continue without a pin is never sent to a shared key (src/routing/sticky/thread-pins.ts).
   */
  threadPinTtlMs: number;
  /** Session pins the process keeps without Redis (or while it is down), the least recently written dropped first. */
  stickyPinMaxEntries: number;
  /**
   * Thread pins the process keeps, apart from session pins: a thread pin pushed out sends a legitimate continue
   * to the caller's own keys or a 404, so session traffic must never evict it.
   */
  threadPinMaxEntries: number;
  /** At most this many bytes of thread pins (their pending tool results), in process and in Redis alike. */
  threadPinMaxBytes: number;
  /** Host names that imply a data region for requests arriving on them. */
  regionalHosts: ReadonlyMap<string, ResidencyRegion>;
  /** Processes serving the port (`SWITCHBOARD_WORKERS`); above 1, a cluster primary forks that many workers. */
  workers: number;
  /** Generation records, broadcast delivery and metrics. */
  observability: ObservabilityConfig;
  /** How long a shutdown waits for requests in flight before ending them. */
  shutdownGraceMs: number;
  /** Time a client has to send its request headers. */
  headersTimeoutMs: number;
  /** Time a client has to send its whole request (headers and body); 0 for no limit. Responses are not timed. */
  bodyTimeoutMs: number;
  /** Idle time after which a keep-alive connection is closed. */
  keepAliveTimeoutMs: number;
  /** Most header fields a request may have. */
  maxHeaderCount: number;
  /** Consecutive failures after which an endpoint's circuit opens; 0 turns the breaker off. */
  circuitFailures: number;
  /** How long an open circuit keeps its endpoint at the back of every plan. */
  circuitCooldownMs: number;
}

/** The observability settings of the environment (see README, "Observability"). */
export interface ObservabilityConfig {
  /** Write a generation record per request (`SWITCHBOARD_GENERATION_RECORDS=off` turns them off). */
  records: boolean;
  /** Records waiting for the database beyond which new ones are dropped. */
  recordQueueLimit: number;
  /** How often waiting records are written. */
  recordFlushMs: number;
  /** Serve `/metrics` without a key on this port too. */
  metricsPort: number | undefined;
  /** Generations one broadcast destination may hold waiting. */
  broadcastQueueLimit: number;
  /** Time allowed for one delivery to a destination. */
  broadcastTimeoutMs: number;
  /** First retry delay of a failed webhook or Langfuse delivery (doubles on each of three retries). */
  broadcastRetryMs: number;
  /** How often stored prompts and completions past their retention are deleted. */
  contentSweepMs: number;
  /**
   * Non-public addresses a broadcast destination may reach (`SWITCHBOARD_ALLOW_PRIVATE_DESTINATIONS`: `true`
   * for any, or CIDRs, addresses and host names separated by commas). Empty: public addresses only.
   */
  privateDestinations: readonly AllowlistEntry[];
}

/** Reads `SWITCHBOARD_ALLOW_PRIVATE_DESTINATIONS`: unset or `false` allows none, `true` every address, else a list. */
export function parsePrivateDestinations(raw: string | undefined): AllowlistEntry[] {
  const text = (raw ?? '').trim();
  if (text === '' || text === 'false') return [];
  if (text === 'true') return [{ kind: 'cidr', range: '0.0.0.0/0' }, { kind: 'cidr', range: '::/0' }];
  return text.split(',').map((entry) => {
    const parsed = parseAllowlistEntry(entry);
    if ('error' in parsed) throw new Error(`SWITCHBOARD_ALLOW_PRIVATE_DESTINATIONS: an entry ${parsed.error}`);
    return parsed;
  });
}

/** Parses `europe=eu.gw.example.com,us=us.gw.example.com` into host name -> region. */
export function parseRegionalHosts(raw: string | undefined): ReadonlyMap<string, ResidencyRegion> {
  const hosts = new Map<string, ResidencyRegion>();
  for (const entry of (raw ?? '').split(',').map((part) => part.trim()).filter(Boolean)) {
    const [region, host] = entry.split('=').map((part) => part.trim());
    if (!isResidencyRegion(region) || !host) {
      throw new Error(`SWITCHBOARD_REGIONAL_HOSTS entries must look like europe=<host> or us=<host>, got ${JSON.stringify(entry)}`);
    }
    hosts.set(host.toLowerCase(), region);
  }
  return hosts;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, least = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < least) throw new Error(`${name} must be ${least === 0 ? 'a non-negative' : 'a positive'} integer, got ${JSON.stringify(raw)}`);
  return value;
}

/** A TCP port: checked here so the message names the variable (Node's listen error names only the number). */
function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65_535) throw new Error(`${name} must be a port number from 0 to 65535, got ${JSON.stringify(raw)}`);
  return value;
}

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/**
 * `SWITCHBOARD_WORKERS`: a positive integer, or `auto` for one per core. Workers share state through
 * PostgreSQL (and Redis), never through PGlite, which one process owns: more than one needs DATABASE_URL.
 */
export function parseWorkers(raw: string | undefined, databaseUrl: string | undefined): number {
  const workers = raw === undefined || raw === '' ? 1 : raw === 'auto' ? availableParallelism() : Number(raw);
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`SWITCHBOARD_WORKERS must be a positive integer or auto, got ${JSON.stringify(raw)}`);
  if (workers > 1 && !databaseUrl) {
    throw new Error(
      `SWITCHBOARD_WORKERS=${raw} needs PostgreSQL (DATABASE_URL): the embedded PGlite database belongs to one process, so several workers cannot share it. Set DATABASE_URL, or run one worker.`,
    );
  }
  return workers;
}

/** Reads the configuration from an environment (process.env by default), failing fast on a bad value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = (env.SWITCHBOARD_LOG_LEVEL ?? 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new Error(`SWITCHBOARD_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logLevel)}`);
  checkDatabaseUrl(env.DATABASE_URL);
  checkRedisUrl(env.REDIS_URL);
  return {
    host: env.HOST ?? '127.0.0.1',
    port: port(env, 'PORT', 8787),
    dataDir: resolve(env.SWITCHBOARD_DATA_DIR ?? './.switchboard'),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    redisCommandTimeoutMs: integer(env, 'SWITCHBOARD_REDIS_COMMAND_TIMEOUT_MS', 1_000, 1),
    catalogConfigPath: env.SWITCHBOARD_CONFIG || undefined,
    masterKey: env.SWITCHBOARD_MASTER_KEY || undefined,
    bootstrapManagementKey: env.SWITCHBOARD_BOOTSTRAP_MANAGEMENT_KEY || undefined,
    logLevel,
    bodyLimitBytes: integer(env, 'SWITCHBOARD_BODY_LIMIT_BYTES', 32 * 1024 * 1024),
    validateResponses: env.SWITCHBOARD_VALIDATE_RESPONSES === 'true',
    // Positive: a request without a time budget would outlive the limit holds sized from it (src/limits).
    requestTimeoutMs: integer(env, 'SWITCHBOARD_REQUEST_TIMEOUT_MS', 600_000, 1),
    upstreamHeadersTimeoutMs: integer(env, 'SWITCHBOARD_UPSTREAM_HEADERS_TIMEOUT_MS', 120_000),
    upstreamBodyTimeoutMs: integer(env, 'SWITCHBOARD_UPSTREAM_BODY_TIMEOUT_MS', 120_000),
    toolLoopPingMs: integer(env, 'SWITCHBOARD_TOOL_LOOP_PING_MS', 15_000, 1),
    stickySessionTtlMs: integer(env, 'SWITCHBOARD_STICKY_TTL_MS', 10 * 60_000),
    threadPinTtlMs: integer(env, 'SWITCHBOARD_THREAD_PIN_TTL_MS', 24 * 60 * 60_000),
    stickyPinMaxEntries: integer(env, 'SWITCHBOARD_STICKY_PIN_MAX_ENTRIES', 100_000, 1),
    threadPinMaxEntries: integer(env, 'SWITCHBOARD_THREAD_PIN_MAX_ENTRIES', 100_000, 1),
    threadPinMaxBytes: integer(env, 'SWITCHBOARD_THREAD_PIN_MAX_BYTES', 64 * 1024 * 1024, 1),
    regionalHosts: parseRegionalHosts(env.SWITCHBOARD_REGIONAL_HOSTS),
    workers: parseWorkers(env.SWITCHBOARD_WORKERS, env.DATABASE_URL || undefined),
    observability: loadObservabilityConfig(env),
    shutdownGraceMs: integer(env, 'SWITCHBOARD_SHUTDOWN_GRACE_MS', 25_000),
    headersTimeoutMs: Math.max(100, integer(env, 'SWITCHBOARD_HEADERS_TIMEOUT_MS', 20_000)),
    bodyTimeoutMs: integer(env, 'SWITCHBOARD_BODY_TIMEOUT_MS', 120_000),
    keepAliveTimeoutMs: integer(env, 'SWITCHBOARD_KEEP_ALIVE_TIMEOUT_MS', 65_000),
    maxHeaderCount: Math.max(1, integer(env, 'SWITCHBOARD_MAX_HEADER_COUNT', 100)),
    circuitFailures: integer(env, 'SWITCHBOARD_CIRCUIT_FAILURES', 5),
    circuitCooldownMs: integer(env, 'SWITCHBOARD_CIRCUIT_COOLDOWN_MS', 30_000),
  };
}

function loadObservabilityConfig(env: NodeJS.ProcessEnv): ObservabilityConfig {
  const records = env.SWITCHBOARD_GENERATION_RECORDS ?? 'on';
  if (records !== 'on' && records !== 'off') throw new Error(`SWITCHBOARD_GENERATION_RECORDS must be on or off, got ${JSON.stringify(records)}`);
  const metricsPort = env.SWITCHBOARD_METRICS_PORT ? port(env, 'SWITCHBOARD_METRICS_PORT', 0) : undefined;
  return {
    records: records === 'on',
    recordQueueLimit: integer(env, 'SWITCHBOARD_RECORD_QUEUE_LIMIT', 10_000),
    recordFlushMs: Math.max(10, integer(env, 'SWITCHBOARD_RECORD_FLUSH_MS', 1_000)),
    metricsPort,
    broadcastQueueLimit: integer(env, 'SWITCHBOARD_BROADCAST_QUEUE_LIMIT', 1_000),
    broadcastTimeoutMs: Math.max(1, integer(env, 'SWITCHBOARD_BROADCAST_TIMEOUT_MS', 10_000)),
    broadcastRetryMs: integer(env, 'SWITCHBOARD_BROADCAST_RETRY_MS', 1_000),
    contentSweepMs: Math.max(1_000, integer(env, 'SWITCHBOARD_CONTENT_SWEEP_MS', 3_600_000)),
    privateDestinations: parsePrivateDestinations(env.SWITCHBOARD_ALLOW_PRIVATE_DESTINATIONS),
  };
}
