/**
 * TallyCounter against prom-client's own Counter: the same increments give the same exposition text and the
 * same text once aggregated across "workers" by prom-client's AggregatorRegistry; and LabelSeries, the lookup
 * both tallies share, keeps one series per distinct label values in the order first seen.
 */
import { AggregatorRegistry, Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { TallyCounter } from '#src/observability/tally-counter.ts';
import { LabelSeries } from '#src/observability/label-series.ts';

const LABELS = ['outcome', 'code', 'model', 'provider'] as const;
type Increment = [values: string[], value?: number];

function pair() {
  const definition = { name: 'test_requests_total', help: 'Requests "of" a test\\suite.\nSecond line.', labelNames: LABELS };
  const reference = new Registry();
  const tallied = new Registry();
  const counter = new Counter({ ...definition, registers: [reference] });
  const tally = new TallyCounter({ ...definition, registry: tallied });
  const inc = (increments: Increment[]) => {
    for (const [values, value] of increments) {
      counter.inc(Object.fromEntries(LABELS.map((name, index) => [name, values[index] ?? ''])), value ?? 1);
      tally.inc(values, value);
    }
  };
  return { reference, tallied, inc };
}

const INCREMENTS: Increment[] = [
  [['success', '200', 'anthropic/claude', 'anthropic']],
  [['success', '200', 'anthropic/claude', 'anthropic'], 2.5],
  [['error', '502', 'anthropic/claude', 'anthropic']],
  // Values that differ only where a joined key would collide or in the last label.
  [['success', '200', 'openai/gpt', 'openai']],
  [['success', '200', 'openai/gpt', 'other']],
  [['success', '200', 'a\u0000b', 'c']],
  [['success', '200', 'a', '\u0000bc']],
  [['success', '200', 'say "hi"\\\n', 'p']],
  // A missing value counts as ''.
  [['success', '200', 'm']],
];

describe('TallyCounter', () => {
  it('exposes what a prom-client Counter exposes for the same increments', async () => {
    const { reference, tallied, inc } = pair();
    inc(INCREMENTS);
    inc(INCREMENTS.slice(0, 3));
    const text = await tallied.metrics();
    expect(text).toBe(await reference.metrics());
    expect(text).toContain('test_requests_total{outcome="success",code="200",model="anthropic/claude",provider="anthropic"} 7');
  });

  it('starts again from zero after a reset, like the Counter', async () => {
    const { reference, tallied, inc } = pair();
    inc(INCREMENTS);
    reference.resetMetrics();
    tallied.resetMetrics();
    inc(INCREMENTS.slice(2, 4));
    // The tally keeps its own totals: a registry reset clears the prom-client counter, which collect() refills.
    expect(await tallied.metrics()).toContain('test_requests_total{outcome="error",code="502",model="anthropic/claude",provider="anthropic"} 2');
  });

  it('aggregates across registries as the Counter does', async () => {
    const first = pair();
    const second = pair();
    first.inc(INCREMENTS);
    second.inc(INCREMENTS.slice(1));
    const aggregate = async (registries: Registry[]) => (await AggregatorRegistry.aggregate(await Promise.all(registries.map((registry) => registry.getMetricsAsJSON()))).metrics());
    expect(await aggregate([first.tallied, second.tallied])).toBe(await aggregate([first.reference, second.reference]));
  });
});

describe('LabelSeries', () => {
  it('creates one series per distinct values, in the order first seen, and forgets them on clear', () => {
    const created: Record<string, string>[] = [];
    const series = new LabelSeries(['a', 'b'] as const, (labels) => {
      created.push(labels);
      return { labels, n: 0 };
    });
    series.get(['x', 'y']).n++;
    series.get(['x', 'z']).n++;
    series.get(['x', 'y']).n++;
    series.get(['xy', '']).n++;
    series.get(['x']).n++;
    expect(series.all).toEqual([
      { labels: { a: 'x', b: 'y' }, n: 2 },
      { labels: { a: 'x', b: 'z' }, n: 1 },
      { labels: { a: 'xy', b: '' }, n: 1 },
      { labels: { a: 'x', b: '' }, n: 1 },
    ]);
    expect(created).toHaveLength(4);
    series.clear();
    expect(series.all).toEqual([]);
    expect(series.get(['x', 'y'])).toEqual({ labels: { a: 'x', b: 'y' }, n: 0 });
  });

  it('has one series when there are no labels', () => {
    const series = new LabelSeries([] as const, () => ({ n: 0 }));
    series.get([]).n++;
    series.get([]).n++;
    expect(series.all).toEqual([{ n: 2 }]);
  });
});
