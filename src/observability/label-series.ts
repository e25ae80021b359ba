/**
 * The series of a tallied metric, found by their label values: one Map per label, the last one holding the
 * series. The tallies (`TallyCounter`, `TallyHistogram`) look a series up on every request, and a key joined
 * from the values would cost more than the rest of an increment: `Array.join` builds a new string, and the
 * Map then hashes it. Walking a Map per label hashes strings the catalog and the records already hold (model
 * and provider slugs, statuses), whose hashes V8 keeps. Series are also kept in the order first seen, which
 * is the order prom-client exposes a metric's label sets in.
 */

/** A Map per label; its values are the next label's Maps, or at the last label the series. */
type Level<S> = Map<string, Level<S> | S>;

/** Series of type `S` by label values, created on first use. */
export class LabelSeries<L extends string, S> {
  private readonly labelNames: readonly L[];
  private readonly create: (labels: Record<L, string>) => S;
  private readonly root: Level<S> = new Map();
  /** Every series in the order first seen. */
  readonly all: S[] = [];

  /** `create` makes a series for label values seen for the first time, given as a label object. */
  constructor(labelNames: readonly L[], create: (labels: Record<L, string>) => S) {
    this.labelNames = labelNames;
    this.create = create;
  }

  /** The series of the label values, given in the order of the label names (a missing value is ''). */
  get(values: readonly string[]): S {
    const last = this.labelNames.length - 1;
    let level = this.root;
    for (let index = 0; index < last; index++) {
      const label = values[index] ?? '';
      let next = level.get(label) as Level<S> | undefined;
      if (next === undefined) level.set(label, (next = new Map()));
      level = next;
    }
    const lastValue = last < 0 ? '' : (values[last] ?? '');
    const known = level.get(lastValue) as S | undefined;
    if (known !== undefined) return known;
    const labels = Object.fromEntries(this.labelNames.map((name, index) => [name, values[index] ?? ''])) as Record<L, string>;
    const series = this.create(labels);
    level.set(lastValue, series);
    this.all.push(series);
    return series;
  }

  /** Forgets every series. */
  clear(): void {
    this.root.clear();
    this.all.length = 0;
  }
}
