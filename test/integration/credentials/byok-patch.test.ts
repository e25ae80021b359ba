/**
 * `PATCH /byok/{id}` over HTTP, on PGlite and PostgreSQL: the field rows of the interface's PATCH table (key
 * rotation, name, disabled, the allow-lists, declared_region, declared_zdr) and the rules below it. A rejected
 * change must leave the stored row untouched. The routing flags, the body and the errors table are in
 * byok-patch-rules.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { distinctiveKey, regionBoundKey } from '#test/helpers/credential-gateway.ts';
import { testDrivers } from '#test/helpers/test-database.ts';
import { hashes, list, useByokPatchSuite } from './byok-patch-support.ts';

const EMPTY_ALLOWED_MODELS =
  'allowed_models is empty: the credential would serve no model, yet with is_required still remove shared capacity for every model (list at least one model, or write null for no restriction)';
const EMPTY_ALLOWED_USER_IDS =
  'allowed_user_ids is empty: the credential would serve no caller, yet with is_required or is_byok_only still remove shared capacity (list at least one user id, or write null for no restriction)';

describe.each(testDrivers())('PATCH /byok/{id} on %s', (driver) => {
  const { context, patch, rejected } = useByokPatchSuite(driver);

  describe('key', () => {
    it('rotates in place: new envelope, new label, old key gone, never returned', async () => {
      const oldKey = distinctiveKey('sk-old-');
      const created = await context.create({ provider: 'anthropic', key: oldKey });
      const before = (await context.row(created.id))!;
      const newKey = distinctiveKey('sk-new-');
      const response = await patch(created.id, { key: newKey });
      expect(response.status).toBe(200);
      expect(response.body.data.label).toBe(`sk-…${newKey.slice(-4)}`);
      expect(response.body.data.label).not.toBe(created.label);
      expect(JSON.stringify(response.body)).not.toContain(newKey);
      expect(response.body.data).not.toHaveProperty('key');
      const after = (await context.row(created.id))!;
      expect(after.keyCiphertext.equals(before.keyCiphertext)).toBe(false);
      expect(after.wrappedDataKey.equals(before.wrappedDataKey)).toBe(false);
      expect(await context.vault.open(after, created.id)).toEqual({ apiKey: newKey, region: null });
      expect(after.id).toBe(created.id);
    });

    it('re-derives declared_region from a region-bound key (openai, fireworks)', async () => {
      const created = await context.create({ provider: 'openai', key: regionBoundKey(distinctiveKey('sk-'), 'us') });
      expect(created.declared_region).toBe('us');
      const europe = await patch(created.id, { key: regionBoundKey(distinctiveKey('sk-'), 'europe') });
      expect(europe.body.data.declared_region).toBe('europe');
      const plain = await patch(created.id, { key: distinctiveKey('sk-') });
      expect(plain.body.data.declared_region).toBeNull();
      const fireworks = await context.create({ provider: 'fireworks', key: distinctiveKey('fw_') });
      const rotated = await patch(fireworks.id, { key: regionBoundKey(distinctiveKey('fw_'), 'europe') });
      expect(rotated.body.data.declared_region).toBe('europe');
    });

    it('rejects an empty key, a region-bound key for other providers, and a region contradicting the new key', async () => {
      const anthropic = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-') });
      await rejected(anthropic.id, { key: '' });
      await rejected(
        anthropic.id,
        { key: regionBoundKey(distinctiveKey('sk-'), 'us') },
        'Invalid request parameters: a region-bound key {"api_key": "…", "region": "us"|"europe"} is only accepted for openai and fireworks (for anthropic, send the key itself)',
      );
      const openai = await context.create({ provider: 'openai', key: distinctiveKey('sk-') });
      await rejected(openai.id, { key: regionBoundKey(distinctiveKey('sk-'), 'europe'), declared_region: 'us' }, /does not match the region of the openai key \(europe\)/);
      await rejected(openai.id, { key: JSON.stringify({ api_key: distinctiveKey('sk-'), region: 'asia' }) }, /key has no valid region/);
    });
  });

  describe('name, disabled', () => {
    it('sets the name up to 255 characters and rejects 256 or null', async () => {
      const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-'), name: 'first' });
      expect((await patch(created.id, { name: 'n'.repeat(255) })).body.data.name).toBe('n'.repeat(255));
      await rejected(created.id, { name: 'n'.repeat(256) });
      await rejected(created.id, { name: null });
      await rejected(created.id, { name: 42 });
    });

    it('toggles disabled and rejects non-booleans', async () => {
      const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-') });
      expect((await patch(created.id, { disabled: true })).body.data.disabled).toBe(true);
      expect((await patch(created.id, { disabled: false })).body.data.disabled).toBe(false);
      await rejected(created.id, { disabled: 'yes' });
    });
  });

  describe('allowed_api_key_hashes', () => {
    it('accepts live keys of the account, replaces, and null clears', async () => {
      const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-') });
      const second = await context.call<{ data: { hash: string } }>('POST', '/keys', { body: { kind: 'inference' } });
      const own = [context.gateway.api_key_hash, second.body.data.hash];
      expect((await patch(created.id, { allowed_api_key_hashes: own })).body.data.allowed_api_key_hashes).toEqual(own);
      expect((await patch(created.id, { allowed_api_key_hashes: [own[1]] })).body.data.allowed_api_key_hashes).toEqual([own[1]]);
      expect((await patch(created.id, { name: 'unrelated' })).body.data.allowed_api_key_hashes).toEqual([own[1]]);
      expect((await patch(created.id, { allowed_api_key_hashes: null })).body.data.allowed_api_key_hashes).toBeNull();
    });

    it('rejects empty, over 100, malformed, unknown, revoked and other accounts’ hashes', async () => {
      const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-') });
      await rejected(created.id, { allowed_api_key_hashes: [] });
      await rejected(created.id, { allowed_api_key_hashes: hashes(101) });
      await rejected(created.id, { allowed_api_key_hashes: ['A'.repeat(64)] });
      await rejected(created.id, { allowed_api_key_hashes: ['a'.repeat(63)] });
      await rejected(created.id, { allowed_api_key_hashes: hashes(1) }, 'Invalid request parameters: allowed_api_key_hashes[0] is not a live API key of this account');
      await rejected(
        created.id,
        { allowed_api_key_hashes: [context.gateway.api_key_hash, context.other.api_key_hash] },
        'Invalid request parameters: allowed_api_key_hashes[1] is not a live API key of this account',
      );
      const revoked = await context.call<{ data: { hash: string } }>('POST', '/keys', { body: { kind: 'inference' } });
      expect((await context.call('DELETE', `/keys/${revoked.body.data.hash}`)).status).toBe(204);
      await rejected(created.id, { allowed_api_key_hashes: [revoked.body.data.hash] }, /allowed_api_key_hashes\[0\] is not a live API key/);
    });

    it('rejects a hash listed twice, naming both places and the hash', async () => {
      const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-') });
      const second = await context.call<{ data: { hash: string } }>('POST', '/keys', { body: { kind: 'inference' } });
      const own = context.gateway.api_key_hash;
      await rejected(
        created.id,
        { allowed_api_key_hashes: [own, second.body.data.hash, own] },
        `Invalid request parameters: allowed_api_key_hashes[2] repeats allowed_api_key_hashes[0]: "${own}" (each entry may be listed once)`,
      );
    });

    it('accepts exactly 100 live hashes', async () => {
      const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-') });
      const issued: string[] = [];
      for (let index = 0; index < 100; index += 1) {
        issued.push((await context.call<{ data: { hash: string } }>('POST', '/keys', { body: { kind: 'inference' } })).body.data.hash);
      }
      expect((await patch(created.id, { allowed_api_key_hashes: issued })).body.data.allowed_api_key_hashes).toEqual(issued);
    });
  });

  describe.each(['allowed_models', 'allowed_user_ids'] as const)('%s', (field) => {
    it('replaces up to 100 entries, keeps them when omitted, null clears, an empty list and 101 are rejected', async () => {
      const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-') });
      const hundred = list(100, field === 'allowed_models' ? 'anthropic/model-' : 'user-');
      expect((await patch(created.id, { [field]: hundred })).body.data[field]).toEqual(hundred);
      expect((await patch(created.id, { [field]: ['anthropic/*'] })).body.data[field]).toEqual(['anthropic/*']);
      expect((await patch(created.id, { disabled: true })).body.data[field]).toEqual(['anthropic/*']);
      await rejected(created.id, { [field]: [] }, `Invalid request parameters: ${field === 'allowed_models' ? EMPTY_ALLOWED_MODELS : EMPTY_ALLOWED_USER_IDS}`);
      expect((await patch(created.id, { [field]: null })).body.data[field]).toBeNull();
      await rejected(created.id, { [field]: list(101, 'x-') });
      await rejected(created.id, { [field]: 'anthropic/*' });
      await rejected(created.id, { [field]: ['a', 'b', 'b'] }, `Invalid request parameters: ${field}[2] repeats ${field}[1]: "b" (each entry may be listed once)`);
    });
  });

  describe('declared_region', () => {
    it('azure accepts europe and us; omitted keeps; null clears; global is accepted', async () => {
      const created = await context.create({ provider: 'azure', key: distinctiveKey('az') });
      expect((await patch(created.id, { declared_region: 'europe' })).body.data.declared_region).toBe('europe');
      expect((await patch(created.id, { name: 'x' })).body.data.declared_region).toBe('europe');
      expect((await patch(created.id, { declared_region: 'us' })).body.data.declared_region).toBe('us');
      expect((await patch(created.id, { declared_region: 'global' })).body.data.declared_region).toBe('global');
      expect((await patch(created.id, { declared_region: null })).body.data.declared_region).toBeNull();
      await rejected(created.id, { declared_region: 'asia' });
    });

    it('other plain-key providers accept only global or null', async () => {
      const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-') });
      expect((await patch(created.id, { declared_region: 'global' })).body.data.declared_region).toBe('global');
      await rejected(created.id, { declared_region: 'europe' }, /declared_region europe is not accepted for anthropic/);
      await rejected(created.id, { declared_region: 'us' }, /only azure accepts europe or us/);
      expect((await patch(created.id, { declared_region: null })).body.data.declared_region).toBeNull();
    });

    it('openai and fireworks: the declaration must match the key', async () => {
      const regional = await context.create({ provider: 'openai', key: regionBoundKey(distinctiveKey('sk-'), 'europe') });
      expect((await patch(regional.id, { declared_region: 'europe' })).body.data.declared_region).toBe('europe');
      await rejected(regional.id, { declared_region: 'us' }, 'Invalid request parameters: declared_region us does not match the region of the openai key (europe)');
      await rejected(regional.id, { declared_region: 'global' }, /does not match/);
      await rejected(regional.id, { declared_region: null }, /does not match/);
      const plain = await context.create({ provider: 'fireworks', key: distinctiveKey('fw_') });
      await rejected(plain.id, { declared_region: 'europe' }, /comes from the key/);
      expect((await patch(plain.id, { declared_region: 'global' })).body.data.declared_region).toBe('global');
    });
  });

  describe('declared_zdr', () => {
    it('true, false, omitted keeps, null clears', async () => {
      const created = await context.create({ provider: 'anthropic', key: distinctiveKey('sk-') });
      expect((await patch(created.id, { declared_zdr: true })).body.data.declared_zdr).toBe(true);
      expect((await patch(created.id, { disabled: true })).body.data.declared_zdr).toBe(true);
      expect((await patch(created.id, { declared_zdr: false })).body.data.declared_zdr).toBe(false);
      expect((await patch(created.id, { declared_zdr: null })).body.data.declared_zdr).toBeNull();
      await rejected(created.id, { declared_zdr: 'true' });
    });
  });

});
