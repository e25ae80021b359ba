/**
 * Another account's resource must look exactly like one that does not exist: not only the status, but the
 * whole answer, whatever the request asks. A rule checked against the stored row before the account is (a
 * region that contradicts the stored key's, a destination moved without its secret, a field of another kind)
 * would answer the attacker a 400 that names the row, where a missing id answers 404. So each read, change
 * and delete of account A's BYOK credential, destination and key, made with account B's management key, is
 * compared byte for byte with the same request on an id nobody has, and A's resources are unchanged after.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCredentialGateway, distinctiveKey, regionBoundKey, type CredentialGateway } from '#test/helpers/credential-gateway.ts';
import { testDrivers } from '#test/helpers/test-database.ts';

interface Probe {
  method: 'GET' | 'PATCH' | 'DELETE';
  body?: unknown;
}

describe.each(testDrivers())('another account’s resources look missing on %s', (driver) => {
  let context: CredentialGateway;
  let credentialId: string;
  let destinationId: string;
  const reads: Record<string, unknown> = {};

  const resources = () => ({
    byok: { existing: `/byok/${credentialId}`, missing: `/byok/${randomUUID()}` },
    destination: { existing: `/observability/destinations/${destinationId}`, missing: `/observability/destinations/${randomUUID()}` },
    key: { existing: `/keys/${context.gateway.api_key_hash}`, missing: `/keys/${'ab'.repeat(32)}` },
  });

  beforeAll(async () => {
    context = await startCredentialGateway(driver);
    const credential = await context.create({ provider: 'openai', key: regionBoundKey(distinctiveKey('sk-foreign'), 'europe'), name: 'a-credential' });
    credentialId = credential.id;
    const destination = await context.call('POST', '/observability/destinations', {
      body: { name: 'a-traces', kind: 'langfuse', endpoint: 'https://langfuse.example.com', public_key: 'pk-lf-a', secret_key: 'sk-lf-0123456789abcdef' },
    });
    expect(destination.status, JSON.stringify(destination.body)).toBe(201);
    destinationId = destination.body.data.id;
    for (const [name, { existing }] of Object.entries(resources())) {
      if (name !== 'key') reads[name] = (await context.call('GET', existing)).body;
    }
    reads.keys = (await context.call('GET', '/keys?limit=100')).body;
  });
  afterAll(async () => {
    await context?.close();
  });

  const PROBES: Record<'byok' | 'destination' | 'key', () => Probe[]> = {
    byok: () => [
      { method: 'GET' },
      { method: 'DELETE' },
      { method: 'PATCH', body: {} },
      { method: 'PATCH', body: { name: 'stolen' } },
      // Each of these contradicts the stored row (its key's region, its provider's key form), not the body.
      { method: 'PATCH', body: { declared_region: 'us' } },
      { method: 'PATCH', body: { key: regionBoundKey(distinctiveKey('sk-other'), 'us') } },
      { method: 'PATCH', body: { key: distinctiveKey('AIza') } },
      { method: 'PATCH', body: { is_fallback: true } },
      { method: 'PATCH', body: { allowed_api_key_hashes: [context.other.api_key_hash] } },
      { method: 'PATCH', body: { allowed_api_key_hashes: [context.gateway.api_key_hash] } },
      { method: 'PATCH', body: { workspace_id: context.gateway.workspace_id } },
      { method: 'PATCH', body: { workspace_id: context.other.workspace_id } },
    ],
    destination: () => [
      { method: 'GET' },
      { method: 'DELETE' },
      { method: 'PATCH', body: {} },
      { method: 'PATCH', body: { name: 'stolen' } },
      // Moving a Langfuse destination elsewhere needs its secret key again; headers and a signing secret are
      // other kinds' fields.
      { method: 'PATCH', body: { endpoint: 'https://attacker.example.com/collect' } },
      { method: 'PATCH', body: { endpoint: 'https://attacker.example.com/collect', secret_key: 'sk-lf-attacker0000' } },
      { method: 'PATCH', body: { headers: { authorization: 'Bearer x' } } },
      { method: 'PATCH', body: { signing_secret: 'whsec_attacker0000000000000' } },
      { method: 'PATCH', body: { enabled: false } },
    ],
    key: () => [
      { method: 'DELETE' },
      { method: 'PATCH', body: {} },
      { method: 'PATCH', body: { name: 'stolen' } },
      { method: 'PATCH', body: { limit: 1 } },
      { method: 'PATCH', body: { requests_per_minute: 1 } },
    ],
  };

  it.each(['byok', 'destination', 'key'] as const)('answers B on A’s %s exactly as on an id nobody has', async (name) => {
    const { existing, missing } = resources()[name];
    for (const probe of PROBES[name]()) {
      const options = { key: context.other.management_key, ...(probe.body === undefined ? {} : { body: probe.body }) };
      const onExisting = await context.call(probe.method, existing, options);
      const onMissing = await context.call(probe.method, missing, options);
      const label = `${probe.method} ${JSON.stringify(probe.body ?? null)}`;
      expect({ status: onExisting.status, body: onExisting.body }, label).toEqual({ status: onMissing.status, body: onMissing.body });
      expect(onExisting.status, label).toBeGreaterThanOrEqual(400);
    }
  });

  it('the row-reading probes do reach a rule for A itself (a 400 naming its row), so the comparison means something', async () => {
    const { byok, destination } = resources();
    const region = await context.call('PATCH', byok.existing, { body: { declared_region: 'us' } });
    expect(region.status, JSON.stringify(region.body)).toBe(400);
    const moved = await context.call('PATCH', destination.existing, { body: { endpoint: 'https://attacker.example.com/collect' } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(400);
    const otherKind = await context.call('PATCH', destination.existing, { body: { signing_secret: 'whsec_attacker0000000000000' } });
    expect(otherKind.status, JSON.stringify(otherKind.body)).toBe(400);
  });

  it('left every resource of A as it was', async () => {
    for (const [name, { existing }] of Object.entries(resources())) {
      if (name !== 'key') expect((await context.call('GET', existing)).body, name).toEqual(reads[name]);
    }
    expect((await context.call('GET', '/keys?limit=100')).body).toEqual(reads.keys);
  });
});
