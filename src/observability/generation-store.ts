/**
 * The `generations` table through the drizzle query layer (PGlite and PostgreSQL alike): batch inserts from
 * the record queue, and the tenant-scoped reads behind `GET /generations` and `GET /generations/{id}`.
 */
import { and, count, desc, eq, getTableColumns, gte, inArray, lt, or, sql, sum, type SQL } from '#src/store/drizzle.ts';
import type { GenerationTotals } from '#src/api-types.ts';
import type { Database } from '#src/store/database.ts';
import { generations } from '#src/store/schema.ts';
import { generationIdBound } from '#src/http/generation-id.ts';
import type { GenerationRecord } from '#src/observability/build-generation-record.ts';
import type { GenerationPosition } from '#src/http/list-cursor.ts';
import { COPY_COLUMN_NAMES, withGenerationsCopyFile } from '#src/observability/generation-copy.ts';

/** The filters of `GET /generations` (and of `switchboard usage`). */
export interface GenerationFilter {
  /** Undefined only for the operator's CLI, which may sum over every account. */
  accountId: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  model?: string | undefined;
  /**
   * The aliases of `model` when it is a catalog slug: a request that named one (dated or not) and failed has
   * no serving model, only the alias it asked for, and still matches.
   */
  modelAliases?: readonly string[] | undefined;
  provider?: string | undefined;
  keyHash?: string | undefined;
  user?: string | undefined;
  sessionId?: string | undefined;
  status?: GenerationRecord['status'] | undefined;
}

// Record field -> column name, from the schema, so the rows below always match the table.
const COLUMN_NAMES = Object.entries(getTableColumns(generations)).map(([field, column]) => [field, column.name] as const);
const TABLE_NAME = 'generations';
// The batch is the records as they are, one JSON array: `json_to_recordset` reads each record's own field
// names (typed from the schema), so no row object is built per record. The lists are SQL built once.
const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
const COLUMN_LIST = sql.raw(COLUMN_NAMES.map(([, name]) => quoted(name)).join(', '));
const FIELD_LIST = sql.raw(COLUMN_NAMES.map(([field]) => quoted(field)).join(', '));
const FIELD_TYPES = sql.raw(Object.entries(getTableColumns(generations)).map(([field, column]) => `${quoted(field)} ${column.getSQLType()}`).join(', '));

/**
 * True for a batch PostgreSQL refused for what it holds: a record already stored (class 23, integrity) or a
 * value its column cannot hold (class 22, data). The INSERT skips the first and names the second. Anything
 * else (a terminated backend, a lost connection, a missing table) is the database's state, not the batch's:
 * the INSERT would meet it too, or, worse, succeed a moment later and hide the outage from the record queue.
 */
function isRefusedBatch(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code);
}

/**
 * Inserts a batch in one statement; a record already stored (a retried batch that had committed) is skipped.
 * The batch is one binary `COPY` (generation-copy.ts). On embedded PGlite that costs about half the
 * instructions per record of a CSV COPY, which itself cost 30 µs of CPU per record against 42 µs for the
 * INSERT below, at 500 records a batch; on PostgreSQL it spares the gateway the batch's JSON text (the
 * `Date`s alone take `JSON.stringify` off its fast path). A batch the COPY file cannot encode or PostgreSQL
 * refuses (isRefusedBatch) is written again with the INSERT, whose errors the record queue reads. The INSERT
 * takes the batch as one JSON parameter expanded by `json_to_recordset`: building a 32-column multi-row VALUES
 * list cost about 115 µs of CPU per record in the query builder, the JSON a few.
 */
export async function insertGenerations(database: Database, records: readonly GenerationRecord[]): Promise<void> {
  if (records.length === 0) return;
  let loading = false;
  try {
    await withGenerationsCopyFile(records, (file) => {
      loading = true;
      return database.copyBinary(TABLE_NAME, COPY_COLUMN_NAMES, file);
    });
    return;
  } catch (error) {
    // Not loading: a value the binary format cannot carry (a fraction for an integer), which the INSERT reports
    // as PostgreSQL does.
    if (loading && !isRefusedBatch(error)) throw error;
  }
  await database.db.execute(sql`insert into ${generations} (${COLUMN_LIST}) select ${FIELD_LIST} from json_to_recordset(${JSON.stringify(records)}::json) as record(${FIELD_TYPES}) on conflict (account_id, id) do nothing`);
}

// An alias with a date suffix names the same model (catalog-plan-view.ts).
const DATE_SUFFIX = '-[0-9]{8}$';

/** The requested or serving model is `model`, or the requested one is an alias of it. */
function modelCondition(model: string, aliases: readonly string[]): SQL | undefined {
  const named = [eq(generations.model, model), eq(generations.requestedModel, model)];
  if (aliases.length === 0) return or(...named);
  const list = [...aliases];
  return or(...named, inArray(generations.requestedModel, list), inArray(sql`regexp_replace(${generations.requestedModel}, ${DATE_SUFFIX}, '')`, list));
}

/** The SQL conditions of a filter. */
export function filterConditions(filter: GenerationFilter): SQL[] {
  const conditions: (SQL | undefined)[] = [
    filter.accountId === undefined ? undefined : eq(generations.accountId, filter.accountId),
    // The same range of ids: the bounds the key's index scans (a record's id begins with its `created_at`).
    filter.from ? gte(generations.id, generationIdBound(filter.from.getTime())) : undefined,
    filter.to ? lt(generations.id, generationIdBound(filter.to.getTime())) : undefined,
    filter.from ? gte(generations.createdAt, filter.from) : undefined,
    filter.to ? lt(generations.createdAt, filter.to) : undefined,
    filter.model === undefined ? undefined : modelCondition(filter.model, filter.modelAliases ?? []),
    filter.provider === undefined ? undefined : eq(generations.provider, filter.provider),
    filter.keyHash === undefined ? undefined : eq(generations.keyHash, filter.keyHash),
    filter.user === undefined ? undefined : eq(generations.userId, filter.user),
    filter.sessionId === undefined ? undefined : eq(generations.sessionId, filter.sessionId),
    filter.status === undefined ? undefined : eq(generations.status, filter.status),
  ];
  return conditions.filter((condition): condition is SQL => condition !== undefined);
}

/** One record of an account, or undefined (another account's record is as absent as a missing one). */
export async function findGeneration(database: Database, accountId: string, id: string): Promise<GenerationRecord | undefined> {
  const [row] = await database.db.select().from(generations).where(and(eq(generations.accountId, accountId), eq(generations.id, id)));
  return row;
}

/**
 * One page of records after `cursor`, newest first, and one more to tell whether a next page exists. Newest
 * first by id is by `created_at`, then id: an id begins with its record's time. The account's range of the
 * key, read backwards, is the order itself; no sort.
 */
export async function listGenerations(database: Database, filter: GenerationFilter, cursor: GenerationPosition | undefined, limit: number): Promise<GenerationRecord[]> {
  const conditions = filterConditions(filter);
  if (cursor) conditions.push(lt(generations.id, cursor.id));
  return database.db
    .select()
    .from(generations)
    .where(and(...conditions))
    .orderBy(desc(generations.id))
    .limit(limit + 1);
}

const totalColumns = {
  requests: count(),
  input_tokens: sum(generations.inputTokens),
  output_tokens: sum(generations.outputTokens),
  cache_read_input_tokens: sum(generations.cacheReadTokens),
  cache_creation_input_tokens: sum(generations.cacheWriteTokens),
  reasoning_tokens: sum(generations.reasoningTokens),
  cost: sum(generations.cost),
};

type TotalRow = { [K in keyof typeof totalColumns]: number | string | null };

/** Numbers from SUM, which drivers return as strings (bigint, numeric). */
export function toTotals(row: TotalRow | undefined): GenerationTotals {
  const number = (value: number | string | null | undefined) => (value === null || value === undefined ? 0 : Number(value));
  return {
    requests: number(row?.requests),
    input_tokens: number(row?.input_tokens),
    output_tokens: number(row?.output_tokens),
    cache_read_input_tokens: number(row?.cache_read_input_tokens),
    cache_creation_input_tokens: number(row?.cache_creation_input_tokens),
    reasoning_tokens: number(row?.reasoning_tokens),
    cost: number(row?.cost),
  };
}

/** Totals over every record matching the filter. */
export async function generationTotals(database: Database, filter: GenerationFilter): Promise<GenerationTotals> {
  const [row] = await database.db.select(totalColumns).from(generations).where(and(...filterConditions(filter)));
  return toTotals(row);
}

/** What `switchboard usage` groups by. */
export type UsageDimension = 'day' | 'model' | 'provider' | 'key';

/** Totals per value of one dimension, largest cost first (days in order). */
export async function usageBy(database: Database, filter: GenerationFilter, dimension: UsageDimension): Promise<(GenerationTotals & { key: string })[]> {
  const column = {
    day: sql<string>`to_char(${generations.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`,
    model: sql<string>`coalesce(${generations.model}, ${generations.requestedModel})`,
    provider: sql<string>`coalesce(${generations.provider}, '(none)')`,
    key: sql<string>`${generations.keyHash}`,
  }[dimension];
  const rows = await database.db
    .select({ key: column, ...totalColumns })
    .from(generations)
    .where(and(...filterConditions(filter)))
    .groupBy(column)
    .orderBy(dimension === 'day' ? column : desc(sum(generations.cost)), column);
  return rows.map((row) => ({ key: String(row.key), ...toTotals(row) }));
}

/** Deletes stored prompts and completions past their retention; returns how many records were cleared. */
export async function clearExpiredContent(database: Database, now: Date): Promise<number> {
  const cleared = await database.db
    .update(generations)
    .set({ prompt: null, completion: null, contentExpiresAt: null })
    .where(lt(generations.contentExpiresAt, now))
    .returning({ id: generations.id });
  return cleared.length;
}
