/**
 * A Prometheus counter whose increments are tallied in plain objects, found by the label values (a Map per
 * label, `LabelSeries`), and handed to prom-client only when scraped. prom-client hashes the label object on
 * every `inc` (about a microsecond each, several per request); a tally costs a Map lookup per label value and
 * an addition, and the scrape pays the rest: `collect()` resets the prom-client counter and sets each label
 * set's total, so the registry renders (and the cluster aggregator sums) an ordinary counter.
 */
import { Counter, type Registry } from 'prom-client';
import { LabelSeries } from '#src/observability/label-series.ts';

/** A counter with fixed label names, incremented by label values in that order. */
export class TallyCounter<L extends string> {
  private readonly tallies: LabelSeries<L, { labels: Record<L, string>; value: number }>;

  constructor(options: { name: string; help: string; labelNames: readonly L[]; registry: Registry }) {
    const tallies = new LabelSeries(options.labelNames, (labels: Record<L, string>) => ({ labels, value: 0 }));
    this.tallies = tallies;
    new Counter({
      name: options.name,
      help: options.help,
      labelNames: options.labelNames,
      registers: [options.registry],
      collect() {
        this.reset();
        for (const { labels, value } of tallies.all) this.inc(labels as never, value);
      },
    });
  }

  /** Adds `value` (default 1) for the label values, given in the order of the label names. */
  inc(values: readonly string[], value = 1): void {
    this.tallies.get(values).value += value;
  }
}
