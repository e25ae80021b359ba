import { describe, expect, it } from 'vitest';
import { databaseErrorFields, statementOf } from '#src/store/database-error-fields.ts';

/** An error report as pg and PGlite raise it: `name` is the protocol message's ("error"). */
function report(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), { name: 'error', severity: 'ERROR', ...fields });
}

/** drizzle's wrapper: the statement and every bound value in its message. */
function failedQuery(query: string, params: unknown[], cause: unknown): Error {
  return Object.assign(new Error(`Failed query: ${query}\nparams: ${params.join(',')}`), { query, params, cause });
}

const VALUE = 'prompt-with-a-secret-0042';

describe('databaseErrorFields', () => {
  it.each([
    [
      'a check violation under drizzle',
      failedQuery('insert into "generations" ("id", "prompt") values ($1, $2)', ['gen_1', VALUE], report('new row for relation "generations" violates check constraint "c"', { code: '23514', table: 'generations', constraint: 'c', detail: `Failing row contains (gen_1, ${VALUE}).`, routine: 'ExecConstraints' })),
      { name: 'DrizzleQueryError', cause: 'DatabaseError', severity: 'ERROR', code: '23514', table: 'generations', constraint: 'c', routine: 'ExecConstraints', statement: 'insert', relation: 'generations' },
    ],
    [
      'a bad value PostgreSQL quotes in its message',
      report(`invalid input syntax for type uuid: "${VALUE}"`, { code: '22P02', routine: 'string_to_uuid' }),
      { name: 'DatabaseError', severity: 'ERROR', code: '22P02', routine: 'string_to_uuid' },
    ],
    [
      'a terminated connection under drizzle: the driver\'s words, no values',
      failedQuery('select "id" from "api_keys" where "key_hash" = $1', [VALUE], new Error('Connection terminated unexpectedly')),
      { name: 'DrizzleQueryError', cause: 'Error', message: 'Connection terminated unexpectedly', statement: 'select', relation: 'api_keys' },
    ],
  ])('%s: codes, never values', (_name, error, expected) => {
    const fields = databaseErrorFields(error);
    expect(fields).toEqual(expected);
    expect(JSON.stringify(fields)).not.toContain(VALUE);
  });

  it.each([
    ['an ordinary error', new Error(`upstream said ${VALUE}`)],
    ['a Node system error with a five-letter code', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })],
  ])('leaves %s to the logger', (_name, error) => {
    expect(databaseErrorFields(error)).toBeUndefined();
  });
});

describe('statementOf', () => {
  it.each([
    ['insert into "generations" ("id") values ($1)', { statement: 'insert', relation: 'generations' }],
    ['update "byok_credentials" set "x" = $1', { statement: 'update', relation: 'byok_credentials' }],
    ['delete from "key_spend_batches" where true', { statement: 'delete', relation: 'key_spend_batches' }],
    ['select "a", "b" from "api_keys" where "id" = $1', { statement: 'select', relation: 'api_keys' }],
    ['with x as (select 1) select * from x', undefined],
  ])('%s', (query, expected) => {
    expect(statementOf(query)).toEqual(expected);
  });
});
