/**
 * The BYOK service below HTTP, on PGlite and PostgreSQL: what its callers (the server's composition root)
 * configure beyond the routes, such as the catalog's list of providers.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createByokService } from '#src/byok/byok-service.ts';
import { createKeyVault } from '#src/byok/key-vault.ts';
import { loadMasterKey } from '#src/byok/master-key.ts';
import { createCursorBinder } from '#src/http/cursor-binding.ts';
import { BadRequestError } from '#src/errors.ts';
import type { Caller } from '#src/http/caller.ts';
import { initAccount } from '#src/keys/accounts.ts';
import { hashApiKey } from '#src/keys/api-key.ts';
import { openTestDatabase, testDrivers, type TestDatabase } from '#test/helpers/test-database.ts';

describe.each(testDrivers())('BYOK service on %s', (driver) => {
  let testDatabase: TestDatabase;
  let caller: Caller;

  beforeAll(async () => {
    testDatabase = await openTestDatabase(driver);
    const account = await initAccount(testDatabase.database, { name: 'service' });
    caller = { accountId: account.account_id, workspaceId: account.workspace_id, keyHash: hashApiKey(account.management_key), kind: 'management', limits: null };
  });
  afterAll(async () => {
    await testDatabase?.drop();
  });

  it('rejects a provider the catalog does not know, when told which it knows', async () => {
    const masterKey = loadMasterKey({ masterKey: randomBytes(32).toString('hex'), driver: 'postgres' });
    const vault = createKeyVault(masterKey);
    const service = createByokService({ database: testDatabase.database, vault, cursors: createCursorBinder(masterKey.key), isKnownProvider: (slug) => slug === 'openai' });
    const created = await service.create(caller, { provider: 'openai', key: 'sk-0123456789abcdef0123' });
    expect(created.provider).toBe('openai');
    const typo = service.create(caller, { provider: 'opneai', key: 'sk-0123456789abcdef0123' });
    await expect(typo).rejects.toThrow(BadRequestError);
    await expect(typo).rejects.toThrow('Invalid request parameters: provider opneai is not a provider of this gateway (GET /models lists them)');
    expect((await service.list(caller, { offset: 0, limit: 10 })).total).toBe(1);
  });
});
