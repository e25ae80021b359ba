/**
 * The gateway's one SQL schema, shared by PGlite and PostgreSQL. Migrations under src/store/migrations are
 * generated from this file by drizzle-kit; never edit a generated migration, add a new one.
 */
import { boolean, check, customType, index, integer, pgTable, sql, text, timestamp, uuid } from '#src/store/drizzle.ts';

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

/** A gateway API key, stored only as the SHA-256 hex of the raw key. */
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
  },
  (table) => [
    index('api_keys_account_idx').on(table.accountId),
    check('api_keys_hash_format', sql`${table.hash} ~ '^[a-f0-9]{64}$'`),
    check('api_keys_kind_values', sql`${table.kind} in ('management', 'inference')`),
  ],
);

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
    keyRegion: text('key_region', { enum: ['us', 'europe'] }),
    disabled: boolean('disabled').notNull().default(false),
    isFallback: boolean('is_fallback').notNull().default(false),
    isByokOnly: boolean('is_byok_only').notNull().default(false),
    isRequired: boolean('is_required').notNull().default(false),
    sortOrder: integer('sort_order').notNull().default(0),
    allowedApiKeyHashes: text('allowed_api_key_hashes').array(),
    allowedModels: text('allowed_models').array(),
    allowedUserIds: text('allowed_user_ids').array(),
    declaredRegion: text('declared_region', { enum: ['global', 'europe', 'us'] }),
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

/** A stored account row. */
export type AccountRow = typeof accounts.$inferSelect;
/** A stored workspace row. */
export type WorkspaceRow = typeof workspaces.$inferSelect;
/** A stored API key row (hash only). */
export type ApiKeyRow = typeof apiKeys.$inferSelect;
/** A stored credential row, envelope included: never send one to a client as is. */
export type ByokCredentialRow = typeof byokCredentials.$inferSelect;
