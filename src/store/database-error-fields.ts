/**
 * What a log line may say about a database error. Drizzle's `DrizzleQueryError` puts every bound parameter in
 * its message ("Failed query: … params: …"), which for a generation record with content capture on is the
 * prompt and the completion, and PostgreSQL's own messages quote values too ("invalid input syntax for type
 * uuid: \"…\""); its `detail` quotes the failing row. A database error is therefore logged by what identifies
 * it (its class, SQLSTATE, severity, schema, table, column, data type, constraint and the server routine) and,
 * for a failed query, the statement's kind and relation, never by its message. Pure.
 */
/** The fields of a PostgreSQL error report (pg's and PGlite's `DatabaseError`) that never hold a value. */
const SAFE_FIELDS = ['severity', 'code', 'schema', 'table', 'column', 'dataType', 'constraint', 'routine'] as const;

const SQLSTATE = /^[0-9A-Z]{5}$/;

// The statement's kind and the relation it names first: enough to tell the generations insert from a key read.
const STATEMENT = /^\s*(insert\s+into|update|delete\s+from|select\b[\s\S]*?\bfrom)\s+"?([A-Za-z_][\w]*)"?/i;

/**
 * Whether `error` is a PostgreSQL error report: a five-character SQLSTATE with a severity (a Node system error
 * such as `EPIPE` has a five-letter code too, but no severity).
 */
function isErrorReport(error: unknown): error is Record<string, unknown> {
  if (typeof error !== 'object' || error === null) return false;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && SQLSTATE.test(code) && typeof severity === 'string';
}

function reportFields(report: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = { name: 'DatabaseError' };
  for (const field of SAFE_FIELDS) if (typeof report[field] === 'string' && report[field] !== '') fields[field] = report[field];
  return fields;
}

/** A statement's kind (`insert`, `update`, `delete`, `select`) and its first relation, from its text. */
export function statementOf(query: string): { statement: string; relation: string } | undefined {
  const match = STATEMENT.exec(query);
  if (!match?.[1] || !match[2]) return undefined;
  return { statement: match[1].split(/\s+/)[0]?.toLowerCase() ?? '', relation: match[2] };
}

/**
 * Whether `error` is drizzle's `DrizzleQueryError`, told by its shape: the class is not always the one this
 * module would import (a driver module may load its own copy of drizzle's errors).
 */
function isFailedQuery(error: Error): error is Error & { query: string; params: unknown[] } {
  const { query, params } = error as { query?: unknown; params?: unknown };
  return typeof query === 'string' && Array.isArray(params) && error.message.startsWith('Failed query:');
}

function causeFields(cause: unknown): Record<string, unknown> | undefined {
  if (isErrorReport(cause)) return reportFields(cause);
  // A connection failure (terminated backend, refused connection): the driver's and Node's own words, which
  // name no value.
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return { name: cause.name, message: cause.message, ...(typeof code === 'string' ? { code } : {}) };
  }
  return undefined;
}

/**
 * The loggable fields of a database error (a failed drizzle query, or a PostgreSQL error report), or
 * undefined for any other error, which the logger writes as usual. A failed query's driver error is flattened
 * into it, so a log line carries `code` and `table` at the top.
 */
export function databaseErrorFields(error: Error): Record<string, unknown> | undefined {
  if (isFailedQuery(error)) {
    const cause = causeFields(error.cause);
    return { ...cause, name: 'DrizzleQueryError', ...(cause ? { cause: cause.name } : {}), ...statementOf(error.query) };
  }
  return isErrorReport(error) ? reportFields(error) : undefined;
}
