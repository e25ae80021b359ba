/**
 * Scraping the gateway's metrics as Prometheus would, parsed with a Prometheus text-format parser
 * (`parse-prometheus-text-format`), and reading one sample by name and labels.
 */
import { createRequire } from 'node:module';

interface ParsedFamily {
  name: string;
  type: string;
  metrics: { value?: string; labels?: Record<string, string>; count?: string; sum?: string; buckets?: Record<string, string> }[];
}

// The package ships CommonJS without type declarations.
const parsePrometheusText = createRequire(import.meta.url)('parse-prometheus-text-format') as (text: string) => ParsedFamily[];

/** A parsed scrape. */
export interface Scrape {
  families: ParsedFamily[];
  text: string;
  /** The value of a counter or gauge sample whose labels include `labels` (summed over matches); 0 when none. */
  value(name: string, labels?: Record<string, string>): number;
  /**
   * The `_count` of histogram series whose labels include `labels` (summed). Read from the `_count` lines: the
   * parser keeps neither the labels nor the count of a histogram with labels of its own.
   */
  histogramCount(name: string, labels?: Record<string, string>): number;
}

function matches(sample: Record<string, string> | undefined, wanted: Record<string, string>): boolean {
  return Object.entries(wanted).every(([name, value]) => sample?.[name] === value);
}

/** Parses a text exposition. */
export function parseScrape(text: string): Scrape {
  const families = parsePrometheusText(text);
  const family = (name: string) => families.find((candidate) => candidate.name === name);
  return {
    families,
    text,
    value: (name, labels = {}) =>
      (family(name)?.metrics ?? []).filter((sample) => matches(sample.labels, labels)).reduce((sum, sample) => sum + Number(sample.value ?? 0), 0),
    histogramCount: (name, labels = {}) =>
      text
        .split('\n')
        .filter((line) => line.startsWith(`${name}_count`))
        .map((line) => /^\S+?(?:\{(.*)\})? (\S+)$/.exec(line))
        .filter((match): match is RegExpExecArray => match !== null)
        .filter((match) => matches(Object.fromEntries([...(match[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]])) as Record<string, string>, labels))
        .reduce((sum, match) => sum + Number(match[2]), 0),
  };
}

/** `GET /metrics` with a key, parsed. */
export async function scrapeMetrics(baseUrl: string, key: string): Promise<Scrape> {
  const response = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${key}` } });
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}: ${await response.text()}`);
  return parseScrape(await response.text());
}

/**
 * Resolves once the gateway reports `switchboard_redis_up 1`. A gateway slow to connect (a loaded machine)
 * starts without Redis and counts alone meanwhile: a test of what Redis shares waits for it first.
 */
export async function untilRedisUp(baseUrl: string, key: string): Promise<void> {
  while ((await scrapeMetrics(baseUrl, key)).value('switchboard_redis_up') !== 1) await new Promise((resolve) => setTimeout(resolve, 50));
}
