/**
 * The built-in name a configuration file most likely meant when it names one that is not built in
 * (`antropic`, `anthropic/claude-sonet-4.5`): a file overriding a built-in entry under a misspelt name
 * declares a new one instead, and the problems that follow (fields a new entry needs) hide the typo.
 */

/** Edits (insertions, deletions, substitutions) from `a` to `b`, or `limit + 1` once it exceeds `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let row = 1; row <= a.length; row++) {
    const current = [row];
    let smallest = row;
    for (let column = 1; column <= b.length; column++) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      const value = Math.min(previous[column]! + 1, current[column - 1]! + 1, previous[column - 1]! + cost);
      current.push(value);
      smallest = Math.min(smallest, value);
    }
    if (smallest > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/** The candidate within two edits of `name` (and a quarter of its length), the nearest first; undefined when none. */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.min(2, Math.floor(name.length / 4));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const distance = editDistance(name, candidate, limit);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
