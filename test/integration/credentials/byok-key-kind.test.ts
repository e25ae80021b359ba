/**
 * Keys of the wrong kind for their provider, over HTTP: a Google Cloud service-account file (or another JSON
 * document) as a `google` key, an AWS access key id or AWS credentials document as a `bedrock` key. Stored,
 * every request with them failed upstream; create and rotation answer 400 saying what the key is and what the
 * provider takes, store nothing, and never repeat the key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ByokCredential, ByokCredentialPage } from '#src/api-types.ts';
import { startCredentialGateway, distinctiveKey, type CredentialGateway } from '#test/helpers/credential-gateway.ts';

type Answer = { data: ByokCredential; error: { code: number; message: string } };

const GEMINI = 'the google provider calls the Gemini API, which takes a Gemini API key (AIza…, from Google AI Studio); Vertex AI credentials are not supported';
const BEDROCK = 'the bedrock provider takes a Bedrock API key, sent as a bearer token (create one in the Bedrock console); AWS access key pairs are not supported for BYOK';

/** A service-account file as Google Cloud's console downloads it: pretty-printed, the private key with escaped newlines. */
function serviceAccount(secret: string, lines: boolean): string {
  const document = {
    type: 'service_account',
    project_id: 'acme-prod',
    private_key_id: secret.slice(-40),
    private_key: `-----BEGIN PRIVATE KEY-----\n${secret}\n-----END PRIVATE KEY-----\n`,
    client_email: 'gateway@acme-prod.iam.gserviceaccount.com',
    client_id: '104729301234567890123',
    token_uri: 'https://oauth2.googleapis.com/token',
  };
  return lines ? JSON.stringify(document, null, 2) : JSON.stringify(document);
}

describe('BYOK keys of the wrong kind for their provider', () => {
  let context: CredentialGateway;
  const total = async () => (await context.call<ByokCredentialPage>('GET', '/byok?limit=1')).body.total;

  beforeAll(async () => {
    context = await startCredentialGateway('pglite');
  });
  afterAll(async () => {
    await context?.close();
  });

  const cases: Array<[string, string, (secret: string) => string, string]> = [
    ['a service-account file as downloaded', 'google', (secret) => serviceAccount(secret, true), `key is a Google Cloud service-account JSON document: ${GEMINI}`],
    ['a service-account file on one line', 'google', (secret) => serviceAccount(secret, false), `key is a Google Cloud service-account JSON document: ${GEMINI}`],
    ['an authorized-user credentials file', 'google', (secret) => JSON.stringify({ type: 'authorized_user', client_id: 'c', client_secret: secret, refresh_token: secret }), `key is a JSON document: ${GEMINI}`],
    ['an AWS access key id', 'bedrock', () => 'AKIAZ7QK3MX9TLV2RB4N', `key is an AWS access key id: ${BEDROCK}`],
    ['an AWS access key id with its secret', 'bedrock', (secret) => `ASIAZ7QK3MX9TLV2RB4N:${secret}`, `key is an AWS access key id: ${BEDROCK}`],
    ['AWS credentials as JSON', 'bedrock', (secret) => JSON.stringify({ AccessKeyId: 'AKIAZ7QK3MX9TLV2RB4N', SecretAccessKey: secret }), `key is a JSON document of AWS credentials: ${BEDROCK}`],
  ];

  it.each(cases)('create refuses %s (%s) with 400 and the reason, storing nothing', async (_name, provider, key, reason) => {
    const before = await total();
    const secret = distinctiveKey('MIIEvQIBADANBg');
    const response = await context.call<Answer>('POST', '/byok', { body: { provider, key: key(secret) } });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.error).toEqual({ code: 400, message: `Invalid request parameters: ${reason}` });
    expect(JSON.stringify(response.body)).not.toContain(secret);
    expect(context.gateway.logs.join('\n')).not.toContain(secret);
    expect(await total()).toBe(before);
  });

  it.each(cases)('rotation refuses %s (%s) and keeps the stored key', async (_name, provider, key, reason) => {
    const created = await context.create({ provider, key: provider === 'google' ? `AIza${distinctiveKey('Sy').slice(0, 35)}` : distinctiveKey('ABSK') });
    const before = await context.row(created.id);
    const secret = distinctiveKey('MIIEvQIBADANBg');
    const response = await context.call<Answer>('PATCH', `/byok/${created.id}`, { body: { key: key(secret) } });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.error.message).toBe(`Invalid request parameters: ${reason}`);
    expect(JSON.stringify(response.body)).not.toContain(secret);
    expect(await context.row(created.id)).toEqual(before);
  });

  it('still takes a Gemini API key and a Bedrock API key', async () => {
    expect((await context.create({ provider: 'google', key: 'AIzaSyD4f9b2c7d8e1a6f3b0c5d9e2a7b4c1f8e0' })).provider).toBe('google');
    expect((await context.create({ provider: 'bedrock', key: `ABSK${Buffer.from(distinctiveKey('BedrockAPIKey-')).toString('base64')}` })).provider).toBe('bedrock');
  });
});
