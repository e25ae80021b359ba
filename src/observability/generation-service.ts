/**
 * `GET /generations` and `GET /generations/{id}`: the caller's account's records, never another's. The list
 * is keyset-paginated by an opaque cursor and comes with totals over the whole filter.
 */
import { BadRequestError, NotFoundError } from '#src/errors.ts';
import type { Generation, GenerationPage } from '#src/api-types.ts';
import type { Caller } from '#src/http/caller.ts';
import type { Database } from '#src/store/database.ts';
import type { GenerationPosition } from '#src/http/list-cursor.ts';
import type { CursorBinder } from '#src/http/cursor-binding.ts';
import { findGeneration, generationTotals, listGenerations, type GenerationFilter } from '#src/observability/generation-store.ts';
import { toGenerationView } from '#src/observability/generation-view.ts';

/** A list request: the filters (account excluded), where the page starts (a checked cursor's) and its size. */
export interface GenerationQuery extends Omit<GenerationFilter, 'accountId'> {
  cursor?: GenerationPosition | undefined;
  limit: number;
}

/** The operations behind `/generations`. */
export interface GenerationService {
  get(caller: Caller, id: string): Promise<Generation>;
  list(caller: Caller, query: GenerationQuery): Promise<GenerationPage>;
}

// What both JavaScript's dates and PostgreSQL's timestamps hold. RFC 3339, which the spec's format checks,
// also allows year 0000, a leap second and offsets that carry a time past 9999: each of these answered 500.
const EARLIEST = Date.parse('0001-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

function checkTimeBound(name: string, value: Date | undefined): void {
  if (value === undefined) return;
  const time = value.getTime();
  // NaN (an invalid date) fails both comparisons.
  if (!(time >= EARLIEST && time <= LATEST)) throw new BadRequestError(`${name} must be an existing time from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z`);
}

/**
 * Creates the service over the database; `cursors` binds a page's `next_cursor` to the caller's account. `modelAliases` gives the aliases of a catalog slug (the bare
 * Anthropic ids that name it), so a `model` filter also finds failed requests that named it by one.
 */
export function createGenerationService(database: Database, options: { cursors: CursorBinder; modelAliases?: (slug: string) => readonly string[] }): GenerationService {
  return {
    async get(caller, id) {
      const record = await findGeneration(database, caller.accountId, id);
      if (!record) throw new NotFoundError();
      return toGenerationView(record, { withContent: true });
    },
    async list(caller, query) {
      const { cursor, limit, ...filters } = query;
      checkTimeBound('from', filters.from);
      checkTimeBound('to', filters.to);
      if (filters.from && filters.to && filters.from >= filters.to) throw new BadRequestError('from must be before to');
      const modelAliases = filters.model === undefined ? undefined : options.modelAliases?.(filters.model);
      const filter: GenerationFilter = { accountId: caller.accountId, ...filters, modelAliases };
      const [rows, totals] = await Promise.all([listGenerations(database, filter, cursor, limit), generationTotals(database, filter)]);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        data: page.map((record) => toGenerationView(record, { withContent: false })),
        totals,
        next_cursor: rows.length > limit && last ? options.cursors.encode('generations', caller.accountId, { id: last.id }) : null,
      };
    },
  };
}
