/**
 * The gateway's one SQL schema, shared by PGlite and PostgreSQL. Migrations under src/store/migrations are
 * generated from this file by drizzle-kit; never edit a generated migration, add a new one.
 */
import { boolean, check, customType, date, doublePrecision, index, integer, json, pgTable, primaryKey, sql, text, timestamp, uuid } from '#src/store/drizzle.ts';
import { DATA_REGIONS, RESIDENCY_REGIONS } from '#src/data-region.ts';

/** PostgreSQL `bytea`, read and written as a Node Buffer on both drivers. */
const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

/** A customer of the gateway: owns workspaces, API keys and provider credentials. */
export const accounts = pgTable('accounts', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  createdAt: createdAt(),
});

/** A grouping of keys and credentials inside an account; every account has exactly one default workspace. */
export const workspaces = pgTable(
  'workspaces',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    createdAt: createdAt(),
  },
  (table) => [index('workspaces_account_idx').on(table.accountId)],
);

/** The periods after which a key's credit limit starts over (OpenRouter's `limit_reset`); null is never. */
export const LIMIT_RESETS = ['daily', 'weekly', 'monthly'] as const;

/**
 * A gateway API key, stored only as the SHA-256 hex of the raw key, with its limits (all null: no limit). What
 * the key has spent is in `key_spend`; rate counts live in Redis or in each process.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    hash: text('hash').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['management', 'inference'] }).notNull(),
    name: text('name'),
    createdAt: createdAt(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    /** Credit limit in USD per `limit_reset` period (or for the key's life). */
    creditLimit: doublePrecision('credit_limit'),
    limitReset: text('limit_reset', { enum: LIMIT_RESETS }),
    requestsPerMinute: integer('requests_per_minute'),
    tokensPerMinute: integer('tokens_per_minute'),
    maxConcurrentStreams: integer('max_concurrent_streams'),
  },
  (table) => [
    index('api_keys_account_idx').on(table.accountId),
    check('api_keys_hash_format', sql`${table.hash} ~ '^[a-f0-9]{64}$'`),
    check('api_keys_kind_values', sql`${table.kind} in ('management', 'inference')`),
    check('api_keys_limit_reset_values', sql`${table.limitReset} in ('daily', 'weekly', 'monthly')`),
    check('api_keys_credit_limit_range', sql`${table.creditLimit} >= 0`),
  ],
);

/**
 * What each key spent per UTC day (the sum of `usage.cost` of its requests, by the day they started): the
 * durable count behind credit limits, so a restart (or a lost Redis) does not reset a monthly limit. Written
 * in batches off the request path; a period's spending is the sum of its days.
 */
export const keySpend = pgTable(
  'key_spend',
  {
    keyHash: text('key_hash')
      .notNull()
      .references(() => apiKeys.hash, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    cost: doublePrecision('cost').notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.keyHash, table.day] })],
);

/**
 * The spending batches already added to `key_spend`, by the batch's id: a batch written again because the
 * reply to its commit was lost adds nothing the second time. Rows older than a day are deleted.
 */
export const keySpendBatches = pgTable('key_spend_batches', {
  id: text('id').primaryKey(),
  writtenAt: timestamp('written_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * A bring-your-own-key provider credential. The provider key is stored only as an AES-256-GCM envelope: the key
 * encrypted under a per-credential data key, and the data key encrypted under the master key (see key-vault.ts).
 * `version` grows by one on every change: updates are conditional on it (optimistic concurrency).
 */
export const byokCredentials = pgTable(
  'byok_credentials',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    name: text('name'),
    label: text('label').notNull(),
    keyCiphertext: bytea('key_ciphertext').notNull(),
    wrappedDataKey: bytea('wrapped_data_key').notNull(),
    masterKeyId: text('master_key_id').notNull(),
    /** The region an object-style key names (openai, fireworks); null for a plain key. */
    keyRegion: text('key_region', { enum: RESIDENCY_REGIONS }),
    disabled: boolean('disabled').notNull().default(false),
    isFallback: boolean('is_fallback').notNull().default(false),
    isByokOnly: boolean('is_byok_only').notNull().default(false),
    isRequired: boolean('is_required').notNull().default(false),
    sortOrder: integer('sort_order').notNull().default(0),
    allowedApiKeyHashes: text('allowed_api_key_hashes').array(),
    allowedModels: text('allowed_models').array(),
    allowedUserIds: text('allowed_user_ids').array(),
    declaredRegion: text('declared_region', { enum: DATA_REGIONS }),
    declaredZdr: boolean('declared_zdr'),
    version: integer('version').notNull().default(1),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    index('byok_credentials_account_idx').on(table.accountId, table.provider, table.sortOrder),
    check('byok_credentials_not_fallback_and_byok_only', sql`not (${table.isFallback} and ${table.isByokOnly})`),
    check('byok_credentials_not_required_and_fallback', sql`not (${table.isRequired} and ${table.isFallback})`),
    check('byok_credentials_declared_region_values', sql`${table.declaredRegion} in ('global', 'europe', 'us')`),
  ],
);

/**
 * One generation record per `POST /messages` request, written in batches off the request path (see
 * src/observability/record-queue.ts). Rows are never updated except to drop expired prompt and completion text.
 * `attempts`, `trace`, `tool_steps` and `moderation` are plain JSON in the shapes of the spec's `Generation` schema.
 *
 * Every write here is paid for per request, on embedded PGlite in the gateway's own CPU (bench/
 * observability-cost.ts), so the table keeps only what its reads need. Its JSON columns are `json`, not
 * `jsonb`: they are stored and read back whole, never queried into, and `json` only checks the text where
 * `jsonb` rebuilds it. `account_id` has no foreign key: a record is written after its account's key was
 * authenticated, and the gateway never deletes accounts, while the key check would run a query and lock the
 * account's row for every record (a multixact per concurrent writer on PostgreSQL). Together they took
 * about a third off a record's insert on PGlite.
 */
export const generations = pgTable(
  'generations',
  {
    /** `gen_`, then the request's time (newGenerationId): ids sort as the records' `created_at`. */
    id: text('id').notNull(),
    accountId: uuid('account_id').notNull(),
    workspaceId: uuid('workspace_id').notNull(),
    keyHash: text('key_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    requestedModel: text('requested_model').notNull(),
    model: text('model'),
    /** The model the vendor's answer named (`gen_ai.response.model`), where `model` is the catalog slug. */
    responseModel: text('response_model'),
    provider: text('provider'),
    providerName: text('provider_name'),
    isByok: boolean('is_byok').notNull().default(false),
    stream: boolean('stream').notNull(),
    status: text('status', { enum: ['success', 'refusal', 'error', 'cancelled'] }).notNull(),
    httpStatus: integer('http_status').notNull(),
    stopReason: text('stop_reason'),
    errorType: text('error_type'),
    errorMessage: text('error_message'),
    inputTokens: integer('input_tokens').notNull().default(0),
    outputTokens: integer('output_tokens').notNull().default(0),
    cacheReadTokens: integer('cache_read_tokens').notNull().default(0),
    cacheWriteTokens: integer('cache_write_tokens').notNull().default(0),
    reasoningTokens: integer('reasoning_tokens').notNull().default(0),
    /** The upstream reported no token counts: the tokens and cost are the gateway's estimate. */
    usageEstimated: boolean('usage_estimated').notNull().default(false),
    cost: doublePrecision('cost').notNull().default(0),
    timeToFirstByteMs: integer('time_to_first_byte_ms'),
    totalMs: integer('total_ms').notNull(),
    sessionId: text('session_id'),
    userId: text('user_id'),
    trace: json('trace'),
    attempts: json('attempts').notNull(),
    /** Reserved for the server-tool loop's steps. */
    toolSteps: json('tool_steps'),
    /** The moderation plugin's screening call by a catalog model (charged to the key), or null. */
    moderation: json('moderation'),
    prompt: json('prompt'),
    completion: json('completion'),
    /** When the stored prompt and completion are deleted (the workspace's retention period). */
    contentExpiresAt: timestamp('content_expires_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [
    // The key is the only index on the write path but one (on embedded PGlite each index costs a quarter of
    // a record's insert). An id begins with its record's `created_at`, so an account's range of this key
    // serves every query: a record by id, a page newest first, a time range (generation-store.ts).
    primaryKey({ name: 'generations_pkey', columns: [table.accountId, table.id] }),
    // Only records holding content are in it, so the retention sweep costs the others nothing.
    index('generations_content_expiry_idx').on(table.contentExpiresAt).where(sql`${table.contentExpiresAt} is not null`),
    check('generations_status_values', sql`${table.status} in ('success', 'refusal', 'error', 'cancelled')`),
  ],
);

/** Per-workspace observability settings; a workspace without a row has the defaults (no content stored). */
export const workspaceSettings = pgTable('workspace_settings', {
  workspaceId: uuid('workspace_id')
    .primaryKey()
    .references(() => workspaces.id, { onDelete: 'cascade' }),
  storeContent: boolean('store_content').notNull().default(false),
  contentRetentionDays: integer('content_retention_days').notNull().default(30),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * A trace broadcast destination of a workspace. Its secrets (OTLP headers, the Langfuse secret key, the
 * webhook signing secret) are one JSON object sealed like a BYOK key (key-vault.ts), bound to the row's id.
 */
export const observabilityDestinations = pgTable(
  'observability_destinations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    kind: text('kind', { enum: ['otlp', 'langfuse', 'webhook'] }).notNull(),
    endpoint: text('endpoint').notNull(),
    protocol: text('protocol', { enum: ['http/protobuf', 'http/json'] }),
    publicKey: text('public_key'),
    headerNames: text('header_names').array().notNull().default(sql`'{}'::text[]`),
    secretLabel: text('secret_label'),
    secretCiphertext: bytea('secret_ciphertext').notNull(),
    wrappedDataKey: bytea('wrapped_data_key').notNull(),
    masterKeyId: text('master_key_id').notNull(),
    samplingRate: doublePrecision('sampling_rate').notNull().default(1),
    includeContent: boolean('include_content').notNull().default(false),
    disabled: boolean('disabled').notNull().default(false),
    version: integer('version').notNull().default(1),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (table) => [
    index('observability_destinations_account_idx').on(table.accountId, table.workspaceId),
    check('observability_destinations_kind_values', sql`${table.kind} in ('otlp', 'langfuse', 'webhook')`),
    check('observability_destinations_sampling_rate_range', sql`${table.samplingRate} >= 0 and ${table.samplingRate} <= 1`),
  ],
);

/** A stored account row. */
export type AccountRow = typeof accounts.$inferSelect;
/** A stored workspace row. */
export type WorkspaceRow = typeof workspaces.$inferSelect;
/** A stored API key row (hash only). */
export type ApiKeyRow = typeof apiKeys.$inferSelect;
/** A stored credential row, envelope included: never send one to a client as is. */
export type ByokCredentialRow = typeof byokCredentials.$inferSelect;
/** A stored row of one key's spending on one day. */
export type KeySpendRow = typeof keySpend.$inferSelect;
/** A stored generation record row. */
export type GenerationRow = typeof generations.$inferSelect;
/** A generation record as inserted. */
export type GenerationInsert = typeof generations.$inferInsert;
/** A stored workspace settings row. */
export type WorkspaceSettingsRow = typeof workspaceSettings.$inferSelect;
/** A stored destination row, sealed secrets included: never send one to a client as is. */
export type ObservabilityDestinationRow = typeof observabilityDestinations.$inferSelect;
