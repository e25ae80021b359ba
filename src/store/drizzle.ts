/**
 * drizzle-orm, PGlite and node-postgres, loaded through their CommonJS builds, each driver only when the
 * database it serves is opened. Every module takes drizzle's functions (and the drivers) from here, never
 * from the packages, so one copy of each is loaded.
 *
 * Why CommonJS: linking drizzle-orm's ES modules (69 files with circular `export *` re-exports) makes V8
 * allocate about 90 MB of short-lived heap, which the process then keeps committed: `import 'drizzle-orm'`
 * alone raises a bare Node 24 process from 45 to 134 MB of RSS and takes ~0.5 s, its CommonJS build from 45
 * to 57 MB in a fraction of that (Node 24.21; bench/JOURNAL.md). Why lazily: a gateway on PostgreSQL never
 * needs PGlite, one on PGlite never needs node-postgres. The types are the same declarations either way.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

const core = require('drizzle-orm') as typeof import('drizzle-orm');
const pgCore = require('drizzle-orm/pg-core') as typeof import('drizzle-orm/pg-core');

/** Query operators and helpers of drizzle-orm. */
export const { and, asc, count, desc, eq, getTableColumns, gt, gte, inArray, isNull, lt, ne, or, sql, sum, TransactionRollbackError } = core;

/** A SQL fragment, as drizzle's builders take it. */
export type SQL = import('drizzle-orm').SQL;

/** Column and table builders of drizzle-orm's PostgreSQL dialect (the schema). */
export const { boolean, check, customType, date, doublePrecision, index, integer, json, pgTable, primaryKey, text, timestamp, uuid } = pgCore;

/** PGlite (the same copy drizzle's PGlite driver uses), drizzle over it, and its migrator. */
export interface PgliteModules {
  PGlite: typeof import('@electric-sql/pglite').PGlite;
  drizzlePglite: typeof import('drizzle-orm/pglite').drizzle;
  migratePglite: typeof import('drizzle-orm/pglite/migrator').migrate;
}

/** node-postgres, drizzle over it, and its migrator. */
export interface NodePostgresModules {
  pg: typeof import('pg');
  drizzleNodePostgres: typeof import('drizzle-orm/node-postgres').drizzle;
  migrateNodePostgres: typeof import('drizzle-orm/node-postgres/migrator').migrate;
  /** pg-copy-streams' `COPY … FROM STDIN` as a writable stream over a node-postgres client. */
  copyFrom: typeof import('pg-copy-streams').from;
}

/** Loads (once) what the embedded database needs. */
export function loadPglite(): PgliteModules {
  return {
    PGlite: (require('@electric-sql/pglite') as typeof import('@electric-sql/pglite')).PGlite,
    drizzlePglite: (require('drizzle-orm/pglite') as typeof import('drizzle-orm/pglite')).drizzle,
    migratePglite: (require('drizzle-orm/pglite/migrator') as typeof import('drizzle-orm/pglite/migrator')).migrate,
  };
}

/** Loads (once) what PostgreSQL needs. */
export function loadNodePostgres(): NodePostgresModules {
  return {
    pg: require('pg') as typeof import('pg'),
    drizzleNodePostgres: (require('drizzle-orm/node-postgres') as typeof import('drizzle-orm/node-postgres')).drizzle,
    migrateNodePostgres: (require('drizzle-orm/node-postgres/migrator') as typeof import('drizzle-orm/node-postgres/migrator')).migrate,
    copyFrom: (require('pg-copy-streams') as typeof import('pg-copy-streams')).from,
  };
}
