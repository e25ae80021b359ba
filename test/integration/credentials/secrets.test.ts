/**
 * Raw keys, provider and gateway alike, never rest anywhere readable: after creating, rotating, failing and
 * deleting credentials and issuing keys, no table row holds any byte sequence of a raw key (as text, hex or
 * base64), no log line mentions one, and no response but the one issuing a gateway key does. The keys used
 * match none of the logger's redaction patterns, so a leak cannot hide behind redaction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '#src/store/drizzle.ts';
import { startCredentialGateway, distinctiveKey, regionBoundKey, type CredentialGateway } from '#test/helpers/credential-gateway.ts';
import { testDrivers } from '#test/helpers/test-database.ts';

/** Every representation in which a raw key could sit in a row or a line. */
function encodings(raw: string): string[] {
  const bytes = Buffer.from(raw);
  return [raw, bytes.toString('hex'), bytes.toString('base64').replace(/=+$/, ''), bytes.toString('base64url').replace(/=+$/, '')];
}

describe.each(testDrivers())('no raw key at rest or in logs on %s', (driver) => {
  let context: CredentialGateway;
  const providerKeys: string[] = [];
  const gatewayKeys: string[] = [];
  const responses: string[] = [];

  const record = async (method: string, path: string, options: { key?: string | undefined; body?: unknown } = {}) => {
    const response = await context.call(method, path, options);
    responses.push(JSON.stringify(response.body ?? ''));
    return response;
  };

  beforeAll(async () => {
    context = await startCredentialGateway(driver);
    gatewayKeys.push(context.gateway.management_key, context.gateway.api_key, context.other.management_key, context.other.api_key);

    const plain = distinctiveKey('plainprovider');
    const regional = distinctiveKey('regionalprovider');
    providerKeys.push(plain, regional);
    const first = await record('POST', '/byok', { body: { provider: 'anthropic', key: plain, name: 'plain' } });
    const second = await record('POST', '/byok', { body: { provider: 'openai', key: regionBoundKey(regional, 'europe') } });

    const rotated = distinctiveKey('rotatedprovider');
    providerKeys.push(rotated);
    await record('PATCH', `/byok/${first.body.data.id}`, { body: { key: rotated } });

    // Failures carrying keys: rule violations, schema violations, other accounts, wrong key kinds, malformed
    // region-bound keys (the JSON parser's own message would quote the key) and the object form.
    const failing = [
      distinctiveKey('failingrule'),
      distinctiveKey('failingschema'),
      distinctiveKey('failingforeign'),
      distinctiveKey('failingkind'),
      distinctiveKey('failingjson'),
      distinctiveKey('failingobject'),
      distinctiveKey('failingregion'),
    ];
    providerKeys.push(...failing);
    await record('PATCH', `/byok/${second.body.data.id}`, { body: { key: regionBoundKey(failing[0]!, 'us'), declared_region: 'europe' } });
    await record('POST', '/byok', { body: { provider: 'anthropic', key: failing[1], colour: 'blue' } });
    await record('PATCH', `/byok/${second.body.data.id}`, { key: context.other.management_key, body: { key: failing[2] } });
    await record('PATCH', `/byok/${second.body.data.id}`, { key: context.gateway.api_key, body: { key: failing[3] } });
    await record('PATCH', `/byok/${second.body.data.id}`, { body: { key: `{"api_key": "${failing[4]}", region: europe}` } });
    await record('POST', '/byok', { body: { provider: 'openai', key: { api_key: failing[5], region: 'europe' } } });
    await record('POST', '/byok', { body: { provider: 'fireworks', key: JSON.stringify({ api_key: failing[6], region: failing[6] }) } });

    const deleted = distinctiveKey('deletedprovider');
    providerKeys.push(deleted);
    const doomed = await record('POST', '/byok', { body: { provider: 'mistral', key: deleted } });
    await record('DELETE', `/byok/${doomed.body.data.id}`);

    const issued = await context.call('POST', '/keys', { body: { kind: 'inference', name: 'issued' } });
    gatewayKeys.push(issued.body.data.key);
    const revoked = await context.call('POST', '/keys', { body: { kind: 'management' } });
    gatewayKeys.push(revoked.body.data.key);
    await record('DELETE', `/keys/${revoked.body.data.hash}`);
    await record('GET', '/keys?limit=100');
    await record('GET', '/byok?limit=100');
    // A revoked and an unknown key used as bearer tokens.
    await record('GET', '/byok', { key: revoked.body.data.key });
    await record('GET', '/byok', { key: distinctiveKey('sb-unknown') });
  });
  afterAll(async () => {
    await context?.close();
  });

  it('no table row holds any byte of a raw key', async () => {
    const tables = ['accounts', 'workspaces', 'api_keys', 'byok_credentials'];
    let dump = '';
    for (const table of tables) {
      const result = await context.database.db.execute(sql.raw(`select * from ${table}`));
      const rows = (result as unknown as { rows: Record<string, unknown>[] }).rows;
      expect(rows.length, table).toBeGreaterThan(0);
      for (const row of rows) {
        for (const value of Object.values(row)) {
          if (value instanceof Uint8Array) dump += `${Buffer.from(value).toString('hex')}\n${Buffer.from(value).toString('latin1')}\n`;
          else dump += `${JSON.stringify(value)}\n`;
        }
      }
    }
    expect(dump).toContain(context.gateway.api_key_hash);
    for (const raw of [...providerKeys, ...gatewayKeys]) {
      for (const encoded of encodings(raw)) expect(dump.includes(encoded), `${raw.slice(0, 12)}… found as ${encoded.slice(0, 12)}…`).toBe(false);
      // No long fragment either: the label shows at most the last four characters.
      expect(dump.includes(raw.slice(-12))).toBe(false);
    }
  });

  it('no log line and no response mentions a raw key', () => {
    const logs = context.gateway.logs.join('\n');
    expect(context.gateway.logs.length).toBeGreaterThan(0);
    for (const raw of [...providerKeys, ...gatewayKeys]) {
      for (const encoded of encodings(raw)) expect(logs.includes(encoded), `${raw.slice(0, 12)}… in logs`).toBe(false);
    }
    const bodies = responses.join('\n');
    for (const raw of [...providerKeys, ...gatewayKeys]) expect(bodies.includes(raw), `${raw.slice(0, 12)}… in a response`).toBe(false);
  });
});
