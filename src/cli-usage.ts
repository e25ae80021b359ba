/**
 * `switchboard usage`: totals of the generation records (requests, tokens, cost) by day, model, provider and
 * key, as aligned tables or, with `--json`, as one JSON document. Like `keys`, it reads the database directly
 * (PGlite's data directory, or DATABASE_URL), optionally for one account and a time range.
 */
import { parseArgs } from 'node:util';
import type { GenerationTotals } from '#src/api-types.ts';
import type { Database } from '#src/store/database.ts';
import { generationTotals, usageBy, type GenerationFilter, type UsageDimension } from '#src/observability/generation-store.ts';
import { existingTime } from '#src/observability/existing-time.ts';

const DIMENSIONS: readonly UsageDimension[] = ['day', 'model', 'provider', 'key'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// A day, or a date-time with its offset (as GET /generations takes them). `new Date` alone also reads `1` as
// 2001-01-01 and `11/30/2025` or a time without offset in the machine's time zone: totals for a range nobody meant.
const DAY_OR_DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[Tt]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2}))?$/;

/** A mistake in the command line (the caller prints the usage). */
export class UsageCommandError extends Error {}

/** One row of a usage table. */
export type UsageRow = GenerationTotals & { key: string };

const COLUMNS: [string, (row: UsageRow) => string][] = [
  ['requests', (row) => String(row.requests)],
  ['input', (row) => String(row.input_tokens)],
  ['output', (row) => String(row.output_tokens)],
  ['cache read', (row) => String(row.cache_read_input_tokens)],
  ['cache write', (row) => String(row.cache_creation_input_tokens)],
  ['reasoning', (row) => String(row.reasoning_tokens)],
  ['cost (USD)', (row) => row.cost.toFixed(6)],
];

/** Renders rows as an aligned text table whose first column is `title`; numbers are right-aligned. */
export function formatUsageTable(title: string, rows: readonly UsageRow[]): string {
  const header = [title, ...COLUMNS.map(([name]) => name)];
  const body = rows.map((row) => [row.key, ...COLUMNS.map(([, cell]) => cell(row))]);
  const widths = header.map((name, index) => Math.max(name.length, ...body.map((cells) => cells[index]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0))).join('  ');
  return [line(header), ...(body.length > 0 ? body.map(line) : ['(no requests)'])].join('\n');
}

function dateOption(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = DAY_OR_DATE_TIME.test(value) ? existingTime(value) : new Date(Number.NaN);
  if (Number.isNaN(date.getTime())) {
    throw new UsageCommandError(`--${name} must be a date (2025-11-01) or a date-time with its offset (2025-11-01T10:00:00Z), got ${JSON.stringify(value)}`);
  }
  return date;
}

/** `--account`: an account id (a UUID), refused before any query when it is not one; undefined when absent. */
export function accountOption(value: string | undefined): string | undefined {
  if (value !== undefined && !UUID.test(value)) throw new UsageCommandError('--account must be an account id (a UUID)');
  return value;
}

/** Parses the command line and prints the report; `open` runs a function on the opened database. */
export async function runUsageCommand(
  args: string[],
  print: (text: string) => void,
  open: (dataDir: string | undefined, run: (database: Database) => Promise<void>) => Promise<void>,
): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { account: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, by: { type: 'string' }, json: { type: 'boolean' }, 'data-dir': { type: 'string' } },
  });
  const accountId = accountOption(values.account);
  if (values.by !== undefined && !(DIMENSIONS as readonly string[]).includes(values.by)) throw new UsageCommandError(`--by must be one of ${DIMENSIONS.join(', ')}`);
  const filter: GenerationFilter = { accountId, from: dateOption(values.from, 'from'), to: dateOption(values.to, 'to') };
  const dimensions = values.by === undefined ? DIMENSIONS : [values.by as UsageDimension];
  await open(values['data-dir'], async (database) => {
    const totals = await generationTotals(database, filter);
    const groups = await Promise.all(dimensions.map(async (dimension) => [dimension, await usageBy(database, filter, dimension)] as const));
    if (values.json) {
      print(JSON.stringify({ totals, ...Object.fromEntries(groups.map(([dimension, rows]) => [`by_${dimension}`, rows])) }, null, 2));
      return;
    }
    const sections = groups.map(([dimension, rows]) => formatUsageTable(dimension, rows));
    print([...sections, formatUsageTable('total', [{ key: 'all', ...totals }])].join('\n\n'));
  });
}
