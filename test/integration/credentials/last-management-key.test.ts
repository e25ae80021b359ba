/**
 * `DELETE /keys/{hash}` over HTTP on PGlite and PostgreSQL: an account always keeps one live management key.
 * Revoking the last one is a 409 that revokes nothing; revoking a management key while another remains (the
 * calling key itself included) is allowed; and two concurrent revocations of the last two never both succeed.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '#src/errors.ts';
import { revokeApiKey } from '#src/keys/key-service.ts';
import { startCredentialGateway, type CredentialGateway } from '#test/helpers/credential-gateway.ts';
import { testDrivers } from '#test/helpers/test-database.ts';

const LAST_KEY = { error: { code: 409, message: 'Cannot revoke the last active management key of this account; issue another management key first' } };

const hashOf = (key: string) => createHash('sha256').update(key).digest('hex');

describe.each(testDrivers())('the last management key on %s', (driver) => {
  let context: CredentialGateway;
  // The management key the suite calls with: the concurrent rounds may leave another one as the survivor.
  let manager: { key: string; hash: string };

  beforeAll(async () => {
    context = await startCredentialGateway(driver);
    manager = { key: context.gateway.management_key, hash: hashOf(context.gateway.management_key) };
  });
  afterAll(async () => {
    await context?.close();
  });

  async function issueManagementKey(): Promise<{ key: string; hash: string }> {
    const response = await context.call<{ data: { key: string; hash: string } }>('POST', '/keys', { key: manager.key, body: { kind: 'management' } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.data;
  }

  async function liveManagementHashes(): Promise<string[]> {
    const listed = await context.call<{ data: { hash: string; kind: string }[] }>('GET', '/keys?limit=100', { key: manager.key });
    expect(listed.status).toBe(200);
    return listed.body.data.filter((entry) => entry.kind === 'management').map((entry) => entry.hash);
  }

  it('a management key may revoke itself while another remains, and then answers 401', async () => {
    const spare = await issueManagementKey();
    expect((await context.call('DELETE', `/keys/${spare.hash}`, { key: spare.key })).status).toBe(204);
    expect((await context.call('GET', '/keys', { key: spare.key })).status).toBe(401);
    expect((await context.call('GET', '/keys', { key: manager.key })).status).toBe(200);
    expect(await liveManagementHashes()).not.toContain(spare.hash);
  });

  it('revoking the last live management key is a 409 in the error shape, and the key keeps working', async () => {
    for (const hash of await liveManagementHashes()) {
      if (hash !== manager.hash) expect((await context.call('DELETE', `/keys/${hash}`, { key: manager.key })).status).toBe(204);
    }
    const last = await context.call('DELETE', `/keys/${manager.hash}`, { key: manager.key });
    expect(last).toEqual({ status: 409, body: LAST_KEY });
    expect(await liveManagementHashes()).toEqual([manager.hash]);
    expect((await context.call('GET', '/keys', { key: manager.key })).status).toBe(200);
  });

  it('an inference key can still be revoked when one management key is left', async () => {
    const inference = await context.call<{ data: { hash: string } }>('POST', '/keys', { key: manager.key, body: { kind: 'inference' } });
    expect((await context.call('DELETE', `/keys/${inference.body.data.hash}`, { key: manager.key })).status).toBe(204);
  });

  it('of two concurrent revocations of the last two management keys over HTTP, exactly one succeeds', async () => {
    // Several rounds: each pits the manager's revocation of itself against its revocation of a fresh key.
    for (let round = 0; round < 6; round += 1) {
      const fresh = await issueManagementKey();
      const [self, other] = await Promise.all([
        context.call('DELETE', `/keys/${manager.hash}`, { key: manager.key }),
        context.call('DELETE', `/keys/${fresh.hash}`, { key: manager.key }),
      ]);
      const answers = JSON.stringify([self.body, other.body]);
      expect([self.status, other.status].filter((status) => status === 204), answers).toHaveLength(1);
      // The loser is refused by the rule, or (when its key was the one revoked before it was authenticated) 401.
      const loser = self.status === 204 ? other : self;
      if (loser.status !== 401) expect(loser, answers).toEqual({ status: 409, body: LAST_KEY });
      if (self.status === 204) manager = fresh;
      expect(await liveManagementHashes()).toEqual([manager.hash]);
    }
  });

  it('of two concurrent revocations in the store, exactly one commits and the other is the 409', async () => {
    const accountId = context.gateway.account_id;
    for (let round = 0; round < 10; round += 1) {
      const fresh = await issueManagementKey();
      const outcomes = await Promise.allSettled([revokeApiKey(context.database, accountId, manager.hash), revokeApiKey(context.database, accountId, fresh.hash)]);
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.find((outcome) => outcome.status === 'rejected');
      expect(refused?.status === 'rejected' ? refused.reason : undefined).toBeInstanceOf(ConflictError);
      if (outcomes[0]!.status === 'fulfilled') manager = fresh;
      expect(await liveManagementHashes()).toEqual([manager.hash]);
    }
  });
});
