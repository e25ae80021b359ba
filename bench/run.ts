/**
 * `npm run bench`: starts a fake Anthropic upstream, a pass-through floor proxy and the real gateway, each in
 * its own child process on 127.0.0.1, drives each with the closed-loop load generator (JSON and streaming, 1
 * and 64 connections), and prints requests/s, p50/p99 latency and CPU per request side by side. A full run
 * also writes the table to bench/results.md.
 *
 * The `observed` target is the gateway again with generation records on and one OTLP destination (the plain
 * `gateway` target runs with records off), so the table shows what observability costs per request.
 *
 * Options: `--duration <s>` (5), `--warmup <s>` (1), `--connections 1,64`, `--targets direct,floor,gateway,observed`,
 * `--modes json,stream`, `--max-requests <n>`, `--profile <dir>` (profiles the gateway's measured windows with
 * the V8 profiler, one `gateway-<mode>-<conns>.cpuprofile` each in <dir>; summarise one with
 * `node bench/profile-summary.ts <file>`), `--cpu-prof <dir>` (the gateway's whole life, start-up included,
 * with `node --cpu-prof`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { startChild, type ChildServer } from './child-process.ts';
import { runLoad } from './load-generator.ts';
import { renderResults, type ScenarioResult, type TargetName } from './results-table.ts';
import type { UpstreamReady } from './fake-upstream.ts';
import type { FloorReady } from './floor-proxy.ts';
import type { GatewayReady } from './gateway-process.ts';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '1,64' },
    targets: { type: 'string', default: 'direct,floor,gateway,observed' },
    modes: { type: 'string', default: 'json,stream' },
    'max-requests': { type: 'string', default: '200000' },
    profile: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});

const durationMs = Number(values.duration) * 1000;
const warmupMs = Number(values.warmup) * 1000;
const maxRequests = Number(values['max-requests']);
const connectionCounts = values.connections.split(',').map(Number);
const targets = new Set(values.targets.split(','));
const modes = values.modes.split(',').map((mode) => mode === 'stream');
const profileDir = values.profile ? resolve(values.profile) : undefined;
if (profileDir) mkdirSync(profileDir, { recursive: true });
const isFullRun = !values.profile && !values['cpu-prof'] && values.duration === '5' && values.warmup === '1' && targets.size === 4 && modes.length === 2 && values.connections === '1,64';

/** One server to drive: where to send requests and whose CPU counts. */
interface Target {
  name: TargetName;
  origin: string;
  path: string;
  headers: Record<string, string>;
  model: string;
  measured: ChildServer<unknown>;
}

function requestBody(model: string, stream: boolean): string {
  return JSON.stringify({
    model,
    max_tokens: 256,
    ...(stream ? { stream: true } : {}),
    messages: [{ role: 'user', content: 'Hello, how are you today?' }],
  });
}

async function measure(target: Target, upstream: ChildServer<UpstreamReady>, stream: boolean, connections: number): Promise<ScenarioResult> {
  const cpu = { measured: 0, upstream: 0, client: 0 };
  const load = await runLoad({
    origin: target.origin,
    path: target.path,
    headers: target.headers,
    body: requestBody(target.model, stream),
    connections,
    warmupMs,
    durationMs,
    maxRequests,
    stream,
    async onMeasureStart() {
      if (profileDir && target.name !== 'direct upstream' && target.name !== 'pass-through floor') await target.measured.startProfile();
      [cpu.measured, cpu.upstream] = await Promise.all([target.measured.cpuMicros(), upstream.cpuMicros()]);
      const own = process.cpuUsage();
      cpu.client = own.user + own.system;
    },
    async onMeasureEnd() {
      const own = process.cpuUsage();
      const [measured, upstreamNow] = await Promise.all([target.measured.cpuMicros(), upstream.cpuMicros()]);
      cpu.client = own.user + own.system - cpu.client;
      cpu.measured = measured - cpu.measured;
      cpu.upstream = upstreamNow - cpu.upstream;
      if (profileDir && target.name !== 'direct upstream' && target.name !== 'pass-through floor') {
        const prefix = target.name === 'gateway' ? 'gateway' : 'gateway-observed';
        await target.measured.stopProfile(join(profileDir, `${prefix}-${stream ? 'stream' : 'json'}-${connections}.cpuprofile`));
      }
    },
  });
  const perRequest = (micros: number): number => (load.requests > 0 ? micros / load.requests : Number.NaN);
  return {
    target: target.name,
    stream,
    connections,
    load,
    cpuMicrosPerRequest: perRequest(cpu.measured),
    upstreamCpuMicrosPerRequest: perRequest(cpu.upstream),
    clientCpuMicrosPerRequest: perRequest(cpu.client),
  };
}

const children: ChildServer<unknown>[] = [];
const results: ScenarioResult[] = [];
try {
  const upstream = await startChild<UpstreamReady>({ script: new URL('./fake-upstream.ts', import.meta.url) });
  children.push(upstream);
  const upstreamEnv = { BENCH_UPSTREAM_ORIGIN: upstream.ready.origin };
  const anthropicHeaders = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };
  const list: Target[] = [];
  if (targets.has('direct')) {
    list.push({ name: 'direct upstream', origin: upstream.ready.origin, path: '/v1/messages', headers: { ...anthropicHeaders, 'x-api-key': 'sk-ant-bench-direct-0000000000' }, model: 'claude-sonnet-4-5', measured: upstream });
  }
  if (targets.has('floor')) {
    const floor = await startChild<FloorReady>({ script: new URL('./floor-proxy.ts', import.meta.url), env: upstreamEnv });
    children.push(floor);
    list.push({ name: 'pass-through floor', origin: floor.ready.origin, path: '/v1/messages', headers: anthropicHeaders, model: 'claude-sonnet-4-5', measured: floor });
  }
  for (const [option, name, observability] of [['gateway', 'gateway', 'off'], ['observed', 'gateway + observability', 'on']] as const) {
    if (!targets.has(option)) continue;
    const gateway = await startChild<GatewayReady>({
      script: new URL('./gateway-process.ts', import.meta.url),
      env: { ...upstreamEnv, BENCH_OBSERVABILITY: observability },
      execArgv: values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${resolve(values['cpu-prof'])}`] : [],
    });
    children.push(gateway);
    list.push({
      name,
      origin: gateway.ready.origin,
      path: '/api/v1/messages',
      headers: { ...anthropicHeaders, authorization: `Bearer ${gateway.ready.apiKey}` },
      model: gateway.ready.model,
      measured: gateway,
    });
  }

  for (const target of list) {
    for (const stream of modes) {
      for (const connections of connectionCounts) {
        const result = await measure(target, upstream, stream, connections);
        results.push(result);
        const { load } = result;
        console.error(
          `${target.name} ${stream ? 'stream' : 'json'} ${connections} conn: ${load.requestsPerSecond.toFixed(0)} req/s, p50 ${load.p50Ms.toFixed(3)} ms, p99 ${load.p99Ms.toFixed(3)} ms, ${result.cpuMicrosPerRequest.toFixed(0)} µs CPU/req, errors ${load.non2xx}/${load.failures}`,
        );
      }
    }
  }
} finally {
  for (const child of children.reverse()) await child.stop();
}

const markdown = renderResults(results, { warmupMs, durationMs, maxRequests, date: new Date() });
console.log(markdown);
if (isFullRun) {
  writeFileSync(new URL('./results.md', import.meta.url), markdown);
  console.error('written to bench/results.md');
}
const errors = results.reduce((sum, result) => sum + result.load.non2xx + result.load.failures, 0);
if (errors > 0) process.exitCode = 1;
