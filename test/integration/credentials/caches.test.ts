/**
 * The per-request read paths (key authenticator, routing credentials) answer from memory once warm and see
 * every change: on this instance at once, on another instance sharing PostgreSQL through LISTEN/NOTIFY.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '#src/store/database.ts';
import { createCredentialStack, type CredentialStack } from '#src/store/credential-stack.ts';
import { initAccount, seedBootstrapManagementKey, type InitializedAccount } from '#src/keys/accounts.ts';
import { hashApiKey } from '#src/keys/api-key.ts';
import type { Caller } from '#src/http/caller.ts';
import { openTestDatabase, testDrivers, type TestDatabase } from '#test/helpers/test-database.ts';
import { CredentialUnavailableError } from '#src/errors.ts';

const MASTER_KEY = randomBytes(32).toString('base64');

async function eventually(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(testDrivers())('credential caches on %s', (driver) => {
  let testDatabase: TestDatabase;
  let stack: CredentialStack;
  let account: InitializedAccount;
  let management: Caller;

  beforeAll(async () => {
    testDatabase = await openTestDatabase(driver);
    stack = await createCredentialStack(testDatabase.database, { masterKey: MASTER_KEY });
    account = await initAccount(testDatabase.database, { name: 'caches' });
    management = { accountId: account.account_id, workspaceId: account.workspace_id, keyHash: hashApiKey(account.management_key), kind: 'management', limits: null };
  });
  afterAll(async () => {
    await stack?.close();
    await testDatabase?.drop();
  });

  it('authenticates from memory once warm, and a revocation takes effect at once', async () => {
    const issued = await stack.keys.issue({ accountId: account.account_id, kind: 'inference' });
    expect(await stack.authenticator.authenticate(issued.key)).toMatchObject({ accountId: account.account_id, kind: 'inference', keyHash: issued.hash });
    const before = stack.authenticator.databaseLookups();
    for (let index = 0; index < 100; index += 1) await stack.authenticator.authenticate(issued.key);
    expect(stack.authenticator.databaseLookups()).toBe(before);
    // Answered at once, not as a promise: a warm request's authentication takes no asynchronous step.
    expect(stack.authenticator.authenticate(issued.key)).toMatchObject({ keyHash: issued.hash });
    await stack.keys.revoke(account.account_id, issued.hash);
    expect(await stack.authenticator.authenticate(issued.key)).toBeUndefined();
  });

  it('remembers unknown keys briefly, and forgets that when the key is issued', async () => {
    const unknown = `sb-${randomBytes(32).toString('base64url')}`;
    expect(await stack.authenticator.authenticate(unknown)).toBeUndefined();
    const before = stack.authenticator.databaseLookups();
    expect(stack.authenticator.authenticate(unknown)).toBeUndefined();
    expect(stack.authenticator.databaseLookups()).toBe(before);
  });

  it('serves routing credentials from memory and reloads after each change', async () => {
    const created = await stack.byok.create(management, { provider: 'anthropic', key: 'sk-ant-routing-0000000000001' });
    const first = await stack.routingCredentials.forAccount(account.account_id);
    expect(first.map((credential) => credential.id)).toContain(created.id);
    const before = stack.routingCredentials.databaseLookups();
    await stack.routingCredentials.forAccount(account.account_id);
    expect(stack.routingCredentials.databaseLookups()).toBe(before);
    expect(await stack.routingCredentials.revealKey(account.account_id, created.id)).toBe('sk-ant-routing-0000000000001');

    await stack.byok.update(management, created.id, { disabled: true, key: 'sk-ant-routing-0000000000002' });
    const changed = (await stack.routingCredentials.forAccount(account.account_id)).find((credential) => credential.id === created.id);
    expect(changed?.disabled).toBe(true);
    expect(await stack.routingCredentials.revealKey(account.account_id, created.id)).toBe('sk-ant-routing-0000000000002');

    await stack.byok.remove(management, created.id);
    expect((await stack.routingCredentials.forAccount(account.account_id)).some((credential) => credential.id === created.id)).toBe(false);
    await expect(stack.routingCredentials.revealKey(account.account_id, created.id)).rejects.toBeInstanceOf(CredentialUnavailableError);
  });

  it('reveals a region-bound key in the object form', async () => {
    const created = await stack.byok.create(management, { provider: 'openai', key: JSON.stringify({ api_key: 'sk-proj-regional-000000001', region: 'europe' }) });
    expect(await stack.routingCredentials.revealKey(account.account_id, created.id)).toEqual({ api_key: 'sk-proj-regional-000000001', region: 'europe' });
  });

  it('seeds the bootstrap management key once', async () => {
    const rawKey = `sb-${randomBytes(32).toString('base64url')}`;
    expect(await seedBootstrapManagementKey(testDatabase.database, { rawKey })).toBe(true);
    expect(await seedBootstrapManagementKey(testDatabase.database, { rawKey })).toBe(false);
    expect(await stack.authenticator.authenticate(rawKey)).toMatchObject({ kind: 'management' });
  });

  // Only PostgreSQL can be shared by two instances; on PGlite the block is not defined at all (not skipped).
  if (driver === 'postgres') describe('across two instances sharing PostgreSQL', () => {
    let other: Database;
    let otherStack: CredentialStack;

    beforeAll(async () => {
      other = await openDatabase({ databaseUrl: testDatabase.databaseUrl });
      otherStack = await createCredentialStack(other, { masterKey: MASTER_KEY });
    });
    afterAll(async () => {
      await otherStack?.close();
      await other?.close();
    });

    it('a key revoked on one instance stops working on the other', async () => {
      const issued = await stack.keys.issue({ accountId: account.account_id, kind: 'inference' });
      expect(await otherStack.authenticator.authenticate(issued.key)).toBeDefined();
      // The issue's own notification may arrive after the first lookup and drop it: warm means no lookup any more.
      await eventually(async () => {
        const before = otherStack.authenticator.databaseLookups();
        await otherStack.authenticator.authenticate(issued.key);
        return otherStack.authenticator.databaseLookups() === before;
      });
      await stack.keys.revoke(account.account_id, issued.hash);
      await eventually(async () => (await otherStack.authenticator.authenticate(issued.key)) === undefined);
    });

    it('a credential changed on one instance is reloaded on the other', async () => {
      const created = await stack.byok.create(management, { provider: 'azure', key: 'azure-key-000000000000000001' });
      await eventually(async () => (await otherStack.routingCredentials.forAccount(account.account_id)).some((credential) => credential.id === created.id));
      await stack.byok.update(management, created.id, { declared_region: 'europe' });
      await eventually(
        async () =>
          (await otherStack.routingCredentials.forAccount(account.account_id)).find((credential) => credential.id === created.id)?.declaredRegion === 'europe',
      );
    });
  });
});
