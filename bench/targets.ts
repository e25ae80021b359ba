/**
 * The servers the bench drives, each started in its own child process: the fake upstream (measured itself
 * as the "direct" row), the pass-through floor, and the gateway (one process, or a cluster of workers). A
 * target says where to send requests and how to read its CPU time: over IPC from a single process (exact),
 * or from /proc summed over a process tree (a cluster; 10 ms resolution).
 */
import { request } from 'undici';
import { startChild, type ChildServer, type StartChildOptions } from './child-process.ts';
import { cpuMicros, processTree } from './process-stats.ts';
import { gatewayEnvironmentDefaults, GATEWAY_NODE_FLAGS } from '#src/serve/runtime-settings.ts';
import { prepareGateway, type BenchDatabase } from './gateway-setup.ts';
import { BENCH_MODEL, BENCH_PACED_MODEL, BENCH_SLOW_MODEL, PACED_MODEL, SLOW_MODEL } from './bench-models.ts';
import type { UpstreamReady } from './fake-upstream.ts';
import type { FloorReady } from './floor-proxy.ts';
import type { GatewayReady } from './gateway-process.ts';
import type { TargetName } from './results-table.ts';

/** One server to drive. */
export interface Target {
  name: TargetName;
  origin: string;
  path: string;
  headers: Record<string, string>;
  model: string;
  /** A model whose streams trickle, one delta a second (`--streams`). */
  slowModel: string;
  /** A model whose stream arrives one event per packet (the probe). */
  pacedModel: string;
  /** The root process: RSS is summed over it and its descendants. */
  pid: number;
  /** CPU time of the target so far, in microseconds. */
  cpuMicros(): Promise<number>;
  /** The V8 profiler (single-process gateway only). */
  child: ChildServer<unknown>;
  stop(): Promise<void>;
}

const ANTHROPIC_HEADERS = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };

/** Starts the fake upstream; its target is the "direct" row. */
export async function startUpstream(env: Record<string, string>): Promise<{ child: ChildServer<UpstreamReady>; target: Target }> {
  const child = await startChild<UpstreamReady>({ script: new URL('./fake-upstream.ts', import.meta.url), env });
  const target: Target = {
    name: 'direct upstream',
    origin: child.ready.origin,
    path: '/v1/messages',
    headers: { ...ANTHROPIC_HEADERS, 'x-api-key': 'sk-ant-bench-direct-0000000000' },
    model: 'claude-sonnet-4-5',
    slowModel: SLOW_MODEL,
    pacedModel: PACED_MODEL,
    pid: child.pid,
    cpuMicros: () => child.cpuMicros(),
    child,
    stop: () => child.stop(),
  };
  return { child, target };
}

/** Starts the pass-through floor proxy in front of the upstream. */
export async function startFloor(
  upstreamOrigin: string,
  launch: Pick<StartChildOptions, 'launcher' | 'readyTimeoutMs' | 'execArgv'> & { env?: Record<string, string> } = {},
): Promise<Target> {
  const { env, ...rest } = launch;
  const child = await startChild<FloorReady>({ script: new URL('./floor-proxy.ts', import.meta.url), env: { ...env, BENCH_UPSTREAM_ORIGIN: upstreamOrigin }, ...rest });
  return {
    name: 'pass-through floor',
    origin: child.ready.origin,
    path: '/v1/messages',
    headers: ANTHROPIC_HEADERS,
    model: 'claude-sonnet-4-5',
    slowModel: SLOW_MODEL,
    pacedModel: PACED_MODEL,
    pid: child.pid,
    cpuMicros: () => child.cpuMicros(),
    child,
    stop: () => child.stop(),
  };
}

async function postJson(url: string, key: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const response = await request(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, text: await response.body.text() };
}

/** How to start one gateway target. */
export interface GatewayTargetOptions {
  name: TargetName;
  upstreamOrigin: string;
  database: BenchDatabase;
  /** `SWITCHBOARD_WORKERS`; above 1 the CPU is read from /proc over the process tree. */
  workers: number;
  /** Extra Node flags of the gateway process (`--cpu-prof`). */
  execArgv?: string[];
  /** The gateway's own Node flags; unless given, those and the environment `switchboard serve` runs with. */
  nodeFlags?: readonly string[];
  /** With `nodeFlags`: keep the environment `switchboard serve` runs with (compare flags alone). */
  keepEnvironment?: boolean;
  /** Extra environment, e.g. REDIS_URL for a cluster. */
  env?: Record<string, string>;
  /** An OTLP/HTTP traces endpoint added as the account's one broadcast destination (sampling 1). */
  otlpDestination?: string;
  /** A program the gateway runs under (bench/instructions.ts: valgrind), and how long it may take to start. */
  launch?: Pick<StartChildOptions, 'launcher' | 'readyTimeoutMs'>;
}

/**
 * Prepares and starts a gateway, then, from this process, stores a BYOK credential for the bench account
 * and checks over HTTP that routing uses it (so every measured request decrypts the caller's own key).
 */
export async function startGateway(options: GatewayTargetOptions): Promise<Target> {
  const setup = await prepareGateway({
    upstreamOrigin: options.upstreamOrigin,
    database: options.database,
    extraEnv: { SWITCHBOARD_WORKERS: String(options.workers), ...options.env },
  });
  let child: ChildServer<GatewayReady> | undefined;
  try {
    // REDIS_URL only when asked for: a single gateway keeps its pins in process, as the README's default does.
    child = await startChild<GatewayReady>({
      script: new URL('./gateway-process.ts', import.meta.url),
      env: { REDIS_URL: '', DATABASE_URL: '', ...(options.nodeFlags && !options.keepEnvironment ? {} : gatewayEnvironmentDefaults()), ...setup.env },
      execArgv: [...(options.nodeFlags ?? GATEWAY_NODE_FLAGS), ...(options.execArgv ?? [])],
      ...options.launch,
    });
    const { origin } = child.ready;
    const created = await postJson(`${origin}/api/v1/byok`, setup.managementKey, { provider: 'anthropic', key: 'sk-ant-bench-byok-key-0000000002', name: 'bench' });
    if (created.status !== 201) throw new Error(`POST /byok answered ${created.status}: ${created.text}`);
    if (options.otlpDestination) {
      const destination = await postJson(`${origin}/api/v1/observability/destinations`, setup.managementKey, {
        name: 'bench collector',
        kind: 'otlp',
        endpoint: options.otlpDestination,
        protocol: 'http/protobuf',
        sampling_rate: 1,
      });
      if (destination.status !== 201) throw new Error(`POST /observability/destinations answered ${destination.status}: ${destination.text}`);
    }
    // Once per worker at least: connections are spread over the workers.
    for (let check = 0; check < Math.max(1, options.workers) * 2; check += 1) {
      const checked = await postJson(
        `${origin}/api/v1/messages`,
        setup.apiKey,
        { model: BENCH_MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'check' }] },
        { 'x-gateway-metadata': 'enabled', connection: 'close' },
      );
      const metadata = (JSON.parse(checked.text) as { gateway_metadata?: { is_byok?: unknown } }).gateway_metadata;
      if (checked.status !== 200 || metadata?.is_byok !== true) throw new Error(`the check request did not use the BYOK credential: ${checked.status} ${checked.text}`);
    }
    const started = child;
    const multiProcess = options.workers > 1;
    return {
      name: options.name,
      origin,
      path: '/api/v1/messages',
      headers: { ...ANTHROPIC_HEADERS, authorization: `Bearer ${setup.apiKey}` },
      model: BENCH_MODEL,
      slowModel: BENCH_SLOW_MODEL,
      pacedModel: BENCH_PACED_MODEL,
      pid: started.pid,
      cpuMicros: multiProcess ? async () => cpuMicros(processTree(started.pid)) : () => started.cpuMicros(),
      child: started,
      async stop() {
        await started.stop();
        await setup.dispose();
      },
    };
  } catch (error) {
    await child?.stop();
    await setup.dispose();
    throw error;
  }
}
