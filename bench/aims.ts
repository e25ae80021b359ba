/**
 * The aims of issue 12 (and issue 11's observability CPU), checked against one run's figures: CPU per request and throughput against the floor,
 * added latency at one connection, time to the first streamed byte and delta, idle RSS on both databases,
 * the soak's drift, the RSS with 1,000 open streams, and zero errors. Ratios only mean something within one
 * run, so every comparison reads figures of the same run (the soak and the open streams are their own runs,
 * dated in their sections).
 */
import { fixed, type MemoryResult, type ProbeRow, type ScenarioResult, type TargetName } from './results-table.ts';
import { megabytes } from './process-stats.ts';
import { medianOf, type ObservabilityCost } from './observability-run.ts';

/** What the soak mode measured. */
export interface SoakFigures {
  date: string;
  rssAfterFirstMinuteBytes: number;
  rssAtEndBytes: number;
  errors: number;
}

/** What the open-streams mode measured. */
export interface OpenStreamsFigures {
  date: string;
  streams: number;
  /** Highest RSS of the gateway while every stream was open. */
  rssBytes: number;
  errors: number;
}

/** Every figure an aim reads. */
export interface AimInputs {
  scenarios: readonly ScenarioResult[];
  memory: readonly MemoryResult[];
  probes: readonly ProbeRow[];
  observabilityCost: readonly ObservabilityCost[];
  soak: SoakFigures | undefined;
  openStreams: OpenStreamsFigures | undefined;
}

const verdict = (met: boolean): string => (met ? 'met' : 'NOT met');

function find(results: readonly ScenarioResult[], target: TargetName, stream: boolean, connections: number): ScenarioResult | undefined {
  return results.find((result) => result.target === target && result.stream === stream && result.connections === connections);
}

function loadAims(scenarios: readonly ScenarioResult[]): string[] {
  const lines: string[] = [];
  for (const stream of [false, true]) {
    const mode = stream ? 'stream' : 'JSON';
    const gateway64 = find(scenarios, 'gateway', stream, 64);
    const floor64 = find(scenarios, 'pass-through floor', stream, 64);
    if (gateway64 && floor64) {
      const ratio = gateway64.cpuMicrosPerRequest / floor64.cpuMicrosPerRequest;
      lines.push(`- CPU per request, ${mode}, 64 conns: gateway ${fixed(gateway64.cpuMicrosPerRequest, 0)} µs ÷ floor ${fixed(floor64.cpuMicrosPerRequest, 0)} µs = ${fixed(ratio, 2)}× (aim ≤ 1.5×): ${verdict(ratio <= 1.5)}`);
    }
    for (const connections of [16, 64]) {
      const gateway = find(scenarios, 'gateway', stream, connections);
      const floor = find(scenarios, 'pass-through floor', stream, connections);
      if (!gateway || !floor) continue;
      const share = gateway.load.requestsPerSecond / floor.load.requestsPerSecond;
      lines.push(`- throughput, ${mode}, ${connections} conns: gateway ${fixed(gateway.load.requestsPerSecond, 0)} ÷ floor ${fixed(floor.load.requestsPerSecond, 0)} req/s = ${fixed(share, 2)} (aim ≥ 0.6): ${verdict(share >= 0.6)}`);
    }
    const gateway1 = find(scenarios, 'gateway', stream, 1);
    const floor1 = find(scenarios, 'pass-through floor', stream, 1);
    const direct1 = find(scenarios, 'direct upstream', stream, 1);
    if (gateway1 && floor1 && direct1) {
      const gatewayAdded = gateway1.load.p50Ms - direct1.load.p50Ms;
      const floorAdded = floor1.load.p50Ms - direct1.load.p50Ms;
      const ratio = gatewayAdded / floorAdded;
      lines.push(`- p50 added over direct, ${mode}, 1 conn: gateway ${fixed(gatewayAdded, 3)} ms ÷ floor ${fixed(floorAdded, 3)} ms = ${fixed(ratio, 2)}× (aim ≤ 1.3×): ${verdict(ratio <= 1.3)}`);
    }
  }
  return lines;
}

function probeAims(probes: readonly ProbeRow[]): string[] {
  const gateway = probes.find((row) => row.target === 'gateway')?.result;
  const floor = probes.find((row) => row.target === 'pass-through floor')?.result;
  if (!gateway || !floor) return [];
  return (['firstByte', 'firstDelta'] as const).map((name) => {
    const added = gateway.p50[name] - floor.p50[name];
    const label = name === 'firstByte' ? 'first streamed byte' : 'first text delta';
    return `- ${label}, p50 at 1 conn: gateway ${fixed(gateway.p50[name], 3)} ms, floor ${fixed(floor.p50[name], 3)} ms, +${fixed(added, 3)} ms (aim ≤ +0.3 ms): ${verdict(added <= 0.3)}`;
  });
}

function memoryAims(inputs: AimInputs): string[] {
  const lines: string[] = [];
  const limit = 150 * 2 ** 20;
  for (const [target, label] of [
    ['gateway', undefined],
    ['gateway on PostgreSQL', 'PostgreSQL'],
  ] as const) {
    const row = inputs.memory.find((candidate) => candidate.target === target);
    if (!row) continue;
    lines.push(`- idle RSS, ${label ?? row.database}: ${megabytes(row.idleBytes)} MB (aim ≤ 150 MB): ${verdict(row.idleBytes <= limit)}`);
  }
  const { soak, openStreams } = inputs;
  if (soak) {
    const drift = soak.rssAtEndBytes / soak.rssAfterFirstMinuteBytes - 1;
    lines.push(`- soak (${soak.date}): RSS ${megabytes(soak.rssAfterFirstMinuteBytes)} MB after minute 1, ${megabytes(soak.rssAtEndBytes)} MB at the end, ${drift >= 0 ? '+' : ''}${fixed(drift * 100, 1)}% (aim within 10%): ${verdict(Math.abs(drift) <= 0.1)}`);
  } else lines.push('- soak: not measured yet (`npm run bench -- --soak`)');
  if (openStreams) {
    lines.push(`- ${openStreams.streams} open streams (${openStreams.date}): ${megabytes(openStreams.rssBytes)} MB (aim ≤ 300 MB for 1,000): ${verdict(openStreams.streams >= 1000 && openStreams.rssBytes <= 300 * 2 ** 20)}`);
  } else lines.push('- 1,000 open streams: not measured yet (`npm run bench -- --streams 1000`)');
  return lines;
}

/**
 * Issue 11: records on and one OTLP destination cost at most 20 µs of CPU per request. Judged by the in-process
 * measurement (bench/observability-run.ts), one line per database; the load rows' differences are listed
 * beside it without a verdict, since on a shared machine they are smaller than the rows' own noise.
 */
function observabilityAims(scenarios: readonly ScenarioResult[], costs: readonly ObservabilityCost[]): string[] {
  const lines: string[] = [];
  for (const cost of costs) {
    const median = medianOf(cost.microsPerGeneration);
    const database = cost.driver === 'pglite' ? 'PGlite (embedded)' : 'PostgreSQL';
    lines.push(`- CPU added by records and one OTLP destination, measured in one process, ${database}: ${fixed(median, 1)} µs per generation (median of ${cost.microsPerGeneration.map((figure) => fixed(figure, 1)).join(', ')}) (aim ≤ 20 µs): ${verdict(median <= 20)}`);
  }
  for (const stream of [false, true]) {
    for (const connections of [1, 16, 64]) {
      const plain = find(scenarios, 'gateway, observability off', stream, connections);
      const observed = find(scenarios, 'gateway + observability', stream, connections);
      if (!plain || !observed) continue;
      const added = observed.cpuMicrosPerRequest - plain.cpuMicrosPerRequest;
      const judged = costs.length > 0 ? 'load rows, within their noise: the line above decides' : added < 0 ? 'not resolved (below this run\'s noise)' : verdict(added <= 20);
      lines.push(
        `- CPU added by records and one OTLP destination, ${stream ? 'stream' : 'JSON'}, ${connections} conn${connections === 1 ? '' : 's'}: ${fixed(observed.cpuMicrosPerRequest, 0)} − ${fixed(plain.cpuMicrosPerRequest, 0)} = ${fixed(added, 0)} µs (aim ≤ 20 µs): ${judged}`,
      );
    }
  }
  return lines;
}

/** The aims' lines, one per aim, each saying met or NOT met with its figures. */
export function aimLines(inputs: AimInputs): string[] {
  const errors =
    inputs.scenarios.reduce((sum, result) => sum + result.load.non2xx + result.load.failures, 0) +
    inputs.probes.reduce((sum, row) => sum + row.result.failures, 0) +
    (inputs.soak?.errors ?? 0) +
    (inputs.openStreams?.errors ?? 0);
  const lines = [...loadAims(inputs.scenarios), ...observabilityAims(inputs.scenarios, inputs.observabilityCost), ...probeAims(inputs.probes), ...memoryAims(inputs)];
  lines.push(`- errors over every row, the probe${inputs.soak ? ', the soak' : ''}${inputs.openStreams ? ', the open streams' : ''}: ${errors} (aim 0): ${verdict(errors === 0)}`);
  for (const result of inputs.scenarios) {
    if (result.load.firstProblem) lines.push(`  - first problem, ${result.target} ${result.stream ? 'stream' : 'json'} ${result.connections} conns: ${result.load.firstProblem}`);
  }
  return lines;
}
