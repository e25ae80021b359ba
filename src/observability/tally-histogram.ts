/**
 * A Prometheus histogram whose observations are tallied in plain arrays, found by the label values (a Map per
 * label, `LabelSeries`), and handed to prom-client's registry only when scraped. prom-client's `Histogram.observe` converts,
 * validates and hashes the label object on every call (two histograms, so twice per request); a tally costs a
 * Map lookup per label value and a walk along the bucket bounds, and the scrape pays for building the samples.
 *
 * Unlike `TallyCounter`, this does not replay its tallies into a prom-client metric from `collect()`: a
 * Histogram's only public way in is `observe`, one observation at a time, so each scrape would replay every
 * observation since the process started (setting its bucket counts means writing its private `hashMap`).
 * Instead the tally registers itself (`registry.registerMetric`) as a metric whose `get()` returns the
 * samples prom-client's Histogram `get()` returns, in the same shape and order: the registry renders the
 * exposition from them (HELP, TYPE, label order, `le` values, escaping), and `getMetricsAsJSON()`, which the
 * cluster `AggregatorRegistry` sums by metric name and labels, sees an ordinary histogram.
 */
import type { Metric, Registry } from 'prom-client';
import { LabelSeries } from '#src/observability/label-series.ts';

/** One label set's tallies. */
interface Series<L extends string> {
  labels: Record<L, string>;
  /** Observations per bucket, not cumulative: `counts[i]` holds values in (bounds[i-1], bounds[i]]. */
  counts: number[];
  sum: number;
  count: number;
}

/** One sample, as prom-client's Histogram `get()` returns it. */
interface HistogramSample {
  value: number;
  metricName: string;
  exemplar?: null;
  labels: Record<string, string | number>;
}

/** A histogram with fixed label names and bucket bounds, observed by label values in the label names' order. */
export class TallyHistogram<L extends string> {
  /** Read by the registry, as it reads a prom-client metric's. */
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly bounds: readonly number[];
  /** Found by label values without building a key string; exposed in the order first observed, as prom-client does. */
  private readonly series: LabelSeries<L, Series<L>>;

  constructor(options: { name: string; help: string; labelNames: readonly L[]; buckets: readonly number[]; registry: Registry }) {
    if ((options.labelNames as readonly string[]).includes('le')) throw new Error('le is a reserved label name');
    if (options.buckets.some((bound, index) => !Number.isFinite(bound) || (index > 0 && bound <= options.buckets[index - 1]!))) {
      throw new Error(`${options.name}: bucket bounds must be finite and ascending`);
    }
    this.name = options.name;
    this.help = options.help;
    this.bounds = [...options.buckets];
    // One slot past the last bound for values above it: they count towards +Inf only.
    this.series = new LabelSeries(options.labelNames, (labels) => ({ labels, counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 }));
    // The registry's parameter type lists prom-client's own classes; at run time it reads `name`, `type`,
    // `get()` and `reset()`, which this class has.
    options.registry.registerMetric(this as unknown as Metric);
  }

  /** Records `value` for the label values, given in the order of the label names. */
  observe(values: readonly string[], value: number): void {
    // prom-client refuses these too: one NaN would make the series' sum NaN for the life of the process.
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const series = this.series.get(values);
    const bounds = this.bounds;
    let index = 0;
    while (index < bounds.length && value > bounds[index]!) index++;
    series.counts[index]!++;
    series.sum += value;
    series.count++;
  }

  /** The samples of every label set (cumulative buckets, +Inf, sum, count), as prom-client's Histogram gives them. */
  get(): Promise<{ name: string; help: string; type: 'histogram'; values: HistogramSample[]; aggregator: 'sum' }> {
    const bucketName = `${this.name}_bucket`;
    const values: HistogramSample[] = [];
    for (const { labels, counts, sum, count } of this.series.all) {
      let cumulative = 0;
      this.bounds.forEach((bound, index) => {
        cumulative += counts[index]!;
        values.push({ value: cumulative, metricName: bucketName, exemplar: null, labels: { le: bound, ...labels } });
      });
      values.push(
        { value: count, metricName: bucketName, exemplar: null, labels: { le: '+Inf', ...labels } },
        { value: sum, metricName: `${this.name}_sum`, labels: { ...labels } },
        { value: count, metricName: `${this.name}_count`, labels: { ...labels } },
      );
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }

  /** Forgets every label set (`registry.resetMetrics()`). */
  reset(): void {
    this.series.clear();
  }
}
