/**
 * Credentials whose allow-lists were stored empty (`[]`) before the API refused an empty list: `GET /byok`,
 * `GET /byok/{id}` and `PATCH /byok/{id}` answer them as stored (an empty list, usable for nothing, never
 * widened to `null`), and the API refuses writing `[]` to any of the three lists.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from '#src/store/drizzle.ts';
import { byokCredentials } from '#src/store/schema.ts';
import type { ByokCredential, ByokCredentialPage } from '#src/api-types.ts';
import { startCredentialGateway, distinctiveKey, type CredentialGateway } from '#test/helpers/credential-gateway.ts';

describe('BYOK credentials with allow-lists stored empty', () => {
  let context: CredentialGateway;
  let id: string;

  beforeAll(async () => {
    context = await startCredentialGateway('pglite');
    const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-ant-'), name: 'legacy' });
    id = created.id;
    // As a row written before the rule: straight through the store, past the API's validation.
    await context.database.db
      .update(byokCredentials)
      .set({ allowedModels: [], allowedUserIds: [], allowedApiKeyHashes: [] })
      .where(eq(byokCredentials.id, id));
  });
  afterAll(async () => {
    await context?.close();
  });

  const emptyLists = { allowed_models: [], allowed_user_ids: [], allowed_api_key_hashes: [] };

  it('GET /byok/{id} answers 200 with the empty lists as stored', async () => {
    const response = await context.call<{ data: ByokCredential }>('GET', `/byok/${id}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data).toMatchObject({ id, ...emptyLists });
  });

  it('GET /byok lists it with the empty lists as stored', async () => {
    const response = await context.call<ByokCredentialPage>('GET', '/byok');
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data.find((credential) => credential.id === id)).toMatchObject(emptyLists);
  });

  it('PATCH of another field answers 200 and keeps the empty lists', async () => {
    const response = await context.call<{ data: ByokCredential }>('PATCH', `/byok/${id}`, { body: { name: 'renamed' } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data).toMatchObject({ name: 'renamed', ...emptyLists });
    expect(await context.row(id)).toMatchObject({ allowedModels: [], allowedUserIds: [], allowedApiKeyHashes: [] });
  });

  it('PATCH can replace a stored empty list, or clear it to null', async () => {
    const response = await context.call<{ data: ByokCredential }>('PATCH', `/byok/${id}`, { body: { allowed_models: ['anthropic/*'], allowed_user_ids: null } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.data).toMatchObject({ allowed_models: ['anthropic/*'], allowed_user_ids: null, allowed_api_key_hashes: [] });
  });

  it('refuses writing an empty allowed_user_ids, on create and on PATCH, naming the field', async () => {
    const message =
      'Invalid request parameters: allowed_user_ids is empty: the credential would serve no caller, yet with is_required or is_byok_only still remove shared capacity (list at least one user id, or write null for no restriction)';
    const created = await context.call('POST', '/byok', { body: { provider: 'anthropic', key: distinctiveKey('sk-ant-'), allowed_user_ids: [] } });
    expect(created.status).toBe(400);
    expect(created.body.error.message).toBe(message);
    const patched = await context.call('PATCH', `/byok/${id}`, { body: { allowed_user_ids: [] } });
    expect(patched.status).toBe(400);
    expect(patched.body.error.message).toBe(message);
    expect((await context.row(id))?.allowedUserIds).toBeNull();
  });
});
