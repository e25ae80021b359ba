/**
 * A test gateway for the credential suites: the real server on a fresh database (PGlite or PostgreSQL), a
 * known master key so tests can open envelopes they read straight from the database, a second account for
 * cross-account attempts, and small helpers over the management API.
 */
import { randomBytes } from 'node:crypto';
import { eq } from '#src/store/drizzle.ts';
import { expect } from 'vitest';
import { initAccount, type InitializedAccount } from '#src/keys/accounts.ts';
import { byokCredentials, type ByokCredentialRow } from '#src/store/schema.ts';
import type { Database } from '#src/store/database.ts';
import { createKeyVault, type KeyVault } from '#src/byok/key-vault.ts';
import type { ResidencyRegion } from '#src/data-region.ts';
import { loadMasterKey } from '#src/byok/master-key.ts';
import { createCursorBinder, type CursorBinder } from '#src/http/cursor-binding.ts';
import type { ByokCredential } from '#src/api-types.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { callApi, type ApiResponse } from '#test/helpers/management-api.ts';
import type { TestDatabaseDriver } from '#test/helpers/test-database.ts';

/** The running gateway plus what the credential suites need around it. */
export interface CredentialGateway {
  gateway: TestGateway;
  database: Database;
  vault: KeyVault;
  /** Cursors as the gateway binds them (same master key): lets a suite sign a cursor it built. */
  cursors: CursorBinder;
  /** A second account: its keys must never reach the first account's data. */
  other: InitializedAccount;
  /** Calls the API as the first account's management key (or `key`). */
  call<T = any>(method: string, path: string, options?: { key?: string | undefined; body?: unknown; rawBody?: string }): Promise<ApiResponse<T>>;
  /** Creates a credential of the first account, expecting 201. */
  create(body: Record<string, unknown>): Promise<ByokCredential>;
  /** The stored row, read straight from the database. */
  row(id: string): Promise<ByokCredentialRow | undefined>;
  close(): Promise<void>;
}

/** Starts the gateway for a credential suite on a driver. */
export async function startCredentialGateway(driver: TestDatabaseDriver): Promise<CredentialGateway> {
  const masterKey = randomBytes(32).toString('base64');
  const gateway = await startTestGateway({ driver, env: { SWITCHBOARD_MASTER_KEY: masterKey } });
  const database = gateway.server.database;
  const other = await initAccount(database, { name: 'other' });
  const call: CredentialGateway['call'] = (method, path, options = {}) =>
    callApi(gateway.baseUrl, method, path, { ...options, key: 'key' in options ? options.key : gateway.management_key });
  return {
    gateway,
    database,
    vault: createKeyVault(loadMasterKey({ masterKey, driver: 'postgres' })),
    cursors: createCursorBinder(loadMasterKey({ masterKey, driver: 'postgres' }).key),
    other,
    call,
    async create(body) {
      const response = await call<{ data: ByokCredential }>('POST', '/byok', { body });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return response.body.data;
    },
    async row(id) {
      const [row] = await database.db.select().from(byokCredentials).where(eq(byokCredentials.id, id));
      return row;
    },
    close: () => gateway.close(),
  };
}

/** The wire form of a region-bound key (openai, fireworks): the JSON text `{"api_key", "region"}` in the key string. */
export function regionBoundKey(apiKey: string, region: ResidencyRegion): string {
  return JSON.stringify({ api_key: apiKey, region });
}

/** A random provider key that no redaction pattern recognises, so finding it anywhere means a real leak. */
export function distinctiveKey(label: string): string {
  return `${label}${randomBytes(24).toString('hex')}`;
}
