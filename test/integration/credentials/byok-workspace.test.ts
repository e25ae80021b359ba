/**
 * Which workspace `POST /byok` puts a credential in, over HTTP on PGlite and PostgreSQL, with a management key
 * of a workspace that is not the account's default: without `workspace_id`, the calling key's workspace (where
 * `POST /keys` puts the keys it issues too); with one, that workspace of the account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ByokCredential, ByokCredentialPage } from '#src/api-types.ts';
import { issueApiKey } from '#src/keys/key-service.ts';
import { workspaces } from '#src/store/schema.ts';
import { distinctiveKey, startCredentialGateway, type CredentialGateway } from '#test/helpers/credential-gateway.ts';
import { testDrivers } from '#test/helpers/test-database.ts';

describe.each(testDrivers())('the workspace of a new credential on %s', (driver) => {
  let context: CredentialGateway;
  // A second workspace of the account (no API creates one yet; the schema holds several) and its management key.
  let team: { workspaceId: string; managementKey: string };

  beforeAll(async () => {
    context = await startCredentialGateway(driver);
    const [workspace] = await context.database.db.insert(workspaces).values({ accountId: context.gateway.account_id, name: 'team' }).returning();
    const issued = await issueApiKey(context.database, { accountId: context.gateway.account_id, workspaceId: workspace!.id, kind: 'management', name: 'team management' });
    team = { workspaceId: workspace!.id, managementKey: issued.key };
  });
  afterAll(async () => {
    await context?.close();
  });

  async function create(key: string, body: Record<string, unknown>): Promise<ByokCredential> {
    const response = await context.call<{ data: ByokCredential }>('POST', '/byok', { key, body: { provider: 'anthropic', key: distinctiveKey('sk-ant-'), ...body } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.data;
  }

  it('without workspace_id, goes to the calling key’s workspace, not the account’s default', async () => {
    expect(team.workspaceId).not.toBe(context.gateway.workspace_id);
    const created = await create(team.managementKey, { name: 'team credential' });
    expect(created.workspace_id).toBe(team.workspaceId);
    const read = await context.call<{ data: ByokCredential }>('GET', `/byok/${created.id}`, { key: team.managementKey });
    expect(read.body.data.workspace_id).toBe(team.workspaceId);
    const listed = await context.call<ByokCredentialPage>('GET', `/byok?workspace_id=${team.workspaceId}`);
    expect(listed.body.data.map((credential) => credential.id)).toEqual([created.id]);
  });

  it('with the default workspace’s key, goes to the default workspace', async () => {
    expect((await create(context.gateway.management_key, {})).workspace_id).toBe(context.gateway.workspace_id);
  });

  it('an explicit workspace_id of the account wins over the calling key’s', async () => {
    expect((await create(team.managementKey, { workspace_id: context.gateway.workspace_id })).workspace_id).toBe(context.gateway.workspace_id);
    expect((await create(context.gateway.management_key, { workspace_id: team.workspaceId })).workspace_id).toBe(team.workspaceId);
  });

  it('keys issued by the same management key land in the same workspace', async () => {
    const issued = await context.call<{ data: { workspace_id: string } }>('POST', '/keys', { key: team.managementKey, body: { kind: 'inference' } });
    expect(issued.status).toBe(201);
    expect(issued.body.data.workspace_id).toBe(team.workspaceId);
  });
});
