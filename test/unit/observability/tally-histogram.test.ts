/**
 * TallyHistogram against prom-client's own Histogram: the same observations give the same exposition text
 * (names, HELP, TYPE, label order, `le` values, cumulative buckets, sum, count), the same JSON samples, and
 * the same text once aggregated across "workers" by prom-client's AggregatorRegistry.
 */
import { AggregatorRegistry, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TallyHistogram } from '#src/observability/tally-histogram.ts';

const BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];
const LABELS = ['outcome', 'stream', 'provider'] as const;
type Observation = [values: string[], value: number];

/** A prom-client Histogram and a TallyHistogram of the same definition, each in its own registry. */
function pair(labelNames: readonly string[] = LABELS, buckets: number[] = BUCKETS) {
  const definition = { name: 'test_duration_seconds', help: 'Time "of" a test\\request.\nSecond line.', labelNames, buckets };
  const reference = new Registry();
  const tallied = new Registry();
  const histogram = new Histogram({ ...definition, registers: [reference] });
  const tally = new TallyHistogram({ ...definition, registry: tallied });
  const observe = (observations: Observation[]) => {
    for (const [values, value] of observations) {
      histogram.observe(Object.fromEntries(labelNames.map((name, index) => [name, values[index]!])), value);
      tally.observe(values, value);
    }
  };
  return { reference, tallied, histogram, tally, observe };
}

/** A small deterministic generator, so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const EDGES: Observation[] = [
  [['success', 'false', 'alpha'], 0],
  [['success', 'false', 'alpha'], 0.05],
  [['success', 'false', 'alpha'], 0.1],
  [['success', 'false', 'alpha'], 0.30000000000000004],
  [['error', 'true', 'beta'], 300],
  [['error', 'true', 'beta'], 300.0001],
  [['error', 'true', 'beta'], 1e9],
  [['success', 'true', 'alpha'], 1],
  [['success', 'true', 'alpha'], 1.0000001],
  [['success', 'false', 'alpha'], 0.2],
  [['success', 'false', 'alpha'], 0.1],
  [['aborted', 'false', 'none'], -0.5],
  [['success', 'false', 'we"ird\\pro\nvider'], 2],
];

describe('TallyHistogram', () => {
  it('renders what prom-client renders for the same observations: bounds, above the last bound, zero, several label sets', async () => {
    const { reference, tallied, observe } = pair();
    observe(EDGES);
    const text = await reference.metrics();
    expect(await tallied.metrics()).toBe(text);
    // The comparison is only worth something if the reference holds what the cases are about.
    expect(text).toContain('test_duration_seconds_bucket{le="0.05",outcome="success",stream="false",provider="alpha"} 2\n');
    expect(text).toContain('test_duration_seconds_bucket{le="300",outcome="error",stream="true",provider="beta"} 1\n');
    expect(text).toContain('test_duration_seconds_bucket{le="+Inf",outcome="error",stream="true",provider="beta"} 3\n');
    expect(text).toContain('provider="we\\"ird\\\\pro\\nvider"');
  });

  it('matches over many random observations, bounds included', async () => {
    const { reference, tallied, observe } = pair();
    const next = random(20261126);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const observations: Observation[] = [];
    for (let index = 0; index < 5000; index++) {
      const value = next() < 0.2 ? pick(BUCKETS) : next() < 0.05 ? 400 * next() + 300 : next() * next() * 40;
      observations.push([[pick(['success', 'error', 'aborted']), pick(['true', 'false']), pick(['alpha', 'beta', 'gamma', 'other'])], value]);
    }
    observe(observations);
    expect(await tallied.metrics()).toBe(await reference.metrics());
  });

  it('matches without labels, with default buckets, and before any observation', async () => {
    const empty = pair();
    expect(await empty.tallied.metrics()).toBe(await empty.reference.metrics());
    const unlabelled = pair([], [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
    unlabelled.observe([[[], 0.025], [[], 0], [[], 11], [[], 2.5]]);
    const text = await unlabelled.reference.metrics();
    expect(text).toContain('test_duration_seconds_bucket{le="0.025"} 2\n');
    expect(await unlabelled.tallied.metrics()).toBe(text);
  });

  it('gives the same JSON samples, and aggregates across workers as a prom-client histogram does', async () => {
    const first = pair();
    const second = pair();
    first.observe(EDGES);
    second.observe([[['success', 'false', 'alpha'], 0.07], [['error', 'false', 'gamma'], 12]]);
    expect(await first.tallied.getMetricsAsJSON()).toEqual(await first.reference.getMetricsAsJSON());
    const aggregate = async (registries: Registry[]) =>
      AggregatorRegistry.aggregate(await Promise.all(registries.map((registry) => registry.getMetricsAsJSON()))).metrics();
    const text = await aggregate([first.reference, second.reference]);
    expect(text).toContain('test_duration_seconds_count{outcome="success",stream="false",provider="alpha"} 7\n');
    expect(await aggregate([first.tallied, second.tallied])).toBe(text);
  });

  it('forgets its label sets on reset, and refuses what prom-client refuses', async () => {
    const { reference, tallied, observe, histogram, tally } = pair();
    observe(EDGES);
    reference.resetMetrics();
    tallied.resetMetrics();
    expect(await tallied.metrics()).toBe(await reference.metrics());
    expect(() => histogram.observe({ outcome: 'success', stream: 'true', provider: 'alpha' }, Number.NaN)).toThrow(TypeError);
    expect(() => tally.observe(['success', 'true', 'alpha'], Number.NaN)).toThrow(TypeError);
    expect(() => tally.observe(['success', 'true', 'alpha'], Number.POSITIVE_INFINITY)).toThrow(TypeError);
    expect(() => new TallyHistogram({ name: 'x', help: 'x', labelNames: ['le'], buckets: [1], registry: new Registry() })).toThrow(/reserved/);
    expect(() => new TallyHistogram({ name: 'x', help: 'x', labelNames: [], buckets: [2, 1], registry: new Registry() })).toThrow(/ascending/);
  });
});
