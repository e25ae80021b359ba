/**
 * `PATCH /byok/{id}` over HTTP, on PGlite and PostgreSQL: the routing flags (is_required, is_fallback,
 * is_byok_only) and their rules, the body as a whole (omitted fields, unknown fields), and every error of the
 * interface's Errors table. A rejected change must leave the stored row untouched.
 */
import { sql } from '#src/store/drizzle.ts';
import { describe, expect, it } from 'vitest';
import type { ByokCredential } from '#src/api-types.ts';
import { distinctiveKey } from '#test/helpers/credential-gateway.ts';
import { testDrivers } from '#test/helpers/test-database.ts';
import { useByokPatchSuite } from './byok-patch-support.ts';

describe.each(testDrivers())('PATCH /byok/{id} on %s', (driver) => {
  const { context, patch, rejected } = useByokPatchSuite(driver);

  describe('is_required, is_fallback, is_byok_only', () => {
    it('sets each flag alone', async () => {
      for (const flag of ['is_required', 'is_fallback', 'is_byok_only'] as const) {
        const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-') });
        expect((await patch(created.id, { [flag]: true })).body.data[flag]).toBe(true);
        expect((await patch(created.id, { [flag]: false })).body.data[flag]).toBe(false);
      }
    });

    it('rejects is_fallback with is_byok_only, in the patch or with the stored value', async () => {
      const message = 'Invalid request parameters: is_fallback cannot be combined with is_byok_only';
      const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-') });
      await rejected(created.id, { is_fallback: true, is_byok_only: true }, message);
      expect((await patch(created.id, { is_byok_only: true })).status).toBe(200);
      await rejected(created.id, { is_fallback: true }, message);
      const swapped = await patch(created.id, { is_fallback: true, is_byok_only: false });
      expect(swapped.body.data).toMatchObject({ is_fallback: true, is_byok_only: false });
      await rejected(created.id, { is_byok_only: true }, message);
    });

    it('rejects is_required on a fallback credential, in the patch or with the stored value', async () => {
      const message = 'Invalid request parameters: is_required is only valid on a non-fallback credential';
      const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-') });
      await rejected(created.id, { is_required: true, is_fallback: true }, message);
      expect((await patch(created.id, { is_fallback: true })).status).toBe(200);
      await rejected(created.id, { is_required: true }, message);
      expect((await patch(created.id, { is_fallback: false, is_required: true })).body.data).toMatchObject({ is_fallback: false, is_required: true });
      await rejected(created.id, { is_fallback: true }, message);
    });
  });

  describe('the body', () => {
    it('leaves every omitted field unchanged, and {} changes nothing', async () => {
      const created = await context.create({
        provider: 'azure',
        key: distinctiveKey('az'),
        name: 'full',
        disabled: true,
        is_byok_only: true,
        is_required: true,
        sort_order: 3,
        allowed_api_key_hashes: [context.gateway.api_key_hash],
        allowed_models: ['openai/gpt-5'],
        allowed_user_ids: ['user-1'],
        declared_region: 'europe',
        declared_zdr: true,
      });
      const empty = await patch(created.id, {});
      expect(empty.status).toBe(200);
      expect(empty.body.data).toEqual(created);
      const renamed = await patch(created.id, { name: 'renamed' });
      expect(renamed.body.data).toEqual({ ...created, name: 'renamed' });
    });

    it('rejects unknown fields, fields the credential does not own, and a body that is not an object', async () => {
      const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-') });
      await rejected(created.id, { colour: 'blue' });
      await rejected(created.id, { provider: 'openai' });
      await rejected(created.id, { label: 'sk-…fake' });
      await rejected(created.id, [{ name: 'x' }]);
      const broken = await context.call('PATCH', `/byok/${created.id}`, { rawBody: '{"name": ' });
      expect(broken.status).toBe(400);
    });
  });

  describe('errors table', () => {
    it('401 Missing Authentication header without the header', async () => {
      const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-') });
      const response = await context.call('PATCH', `/byok/${created.id}`, { key: undefined, body: { name: 'x' } });
      expect(response).toEqual({ status: 401, body: { error: { code: 401, message: 'Missing Authentication header' } } });
    });

    it('401 for an unknown or revoked key', async () => {
      const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-') });
      const response = await patch(created.id, { name: 'x' }, `sb-${'x'.repeat(43)}`);
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe(401);
    });

    it('403 Only management keys can perform this operation for an inference key', async () => {
      const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-') });
      const before = await context.row(created.id);
      const response = await patch(created.id, { name: 'x' }, context.gateway.api_key);
      expect(response).toEqual({ status: 403, body: { error: { code: 403, message: 'Only management keys can perform this operation' } } });
      expect(await context.row(created.id)).toEqual(before);
    });

    it('404 Resource not found for a missing id, a malformed id and another account’s credential', async () => {
      const notFound = { status: 404, body: { error: { code: 404, message: 'Resource not found' } } };
      expect(await patch('bdc3b584-3220-4c89-bab7-50b5edec1497', { name: 'x' })).toEqual(notFound);
      const foreign = await context.call<{ data: ByokCredential }>('POST', '/byok', {
        key: context.other.management_key,
        body: { provider: 'anthropic', key: distinctiveKey('sk-') },
      });
      const before = await context.row(foreign.body.data.id);
      expect(await patch(foreign.body.data.id, { name: 'stolen' })).toEqual(notFound);
      expect(await context.row(foreign.body.data.id)).toEqual(before);
      const malformed = await patch('not-a-uuid', { name: 'x' });
      expect([400, 404]).toContain(malformed.status);
    });

    it('500 Internal Server Error when the database fails, disclosing nothing', async () => {
      const secret = distinctiveKey('sk-');
      const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-') });
      await context.database.db.execute(sql.raw('alter table byok_credentials rename to byok_credentials_away'));
      try {
        const response = await patch(created.id, { key: secret });
        expect(response).toEqual({ status: 500, body: { error: { code: 500, message: 'Internal Server Error' } } });
      } finally {
        await context.database.db.execute(sql.raw('alter table byok_credentials_away rename to byok_credentials'));
      }
      expect(context.gateway.logs.join('\n')).not.toContain(secret);
    });
  });
});
