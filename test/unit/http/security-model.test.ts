import { describe, expect, it } from 'vitest';
import { buildSecurityModel, loadSecurityModel } from '#src/http/security-model.ts';
import { BUNDLED_SPEC_PATH } from '#src/http/bundled-spec.ts';

describe('the security model of the bundled spec', () => {
  const model = loadSecurityModel(BUNDLED_SPEC_PATH);

  it('defines a handler name for every scheme', () => {
    expect([...model.schemeNames].sort()).toEqual(['apiKey', 'bearer']);
  });

  it.each(['createMessage', 'countMessageTokens', 'listModels', 'getModel'])('%s accepts Bearer, then x-api-key', (operationId) => {
    expect(model.acceptedBy({ operationId })).toEqual([{ kind: 'bearer' }, { kind: 'header', name: 'x-api-key' }]);
  });

  it.each(['updateByokCredential', 'createApiKey', 'listApiKeys'])('%s accepts Bearer only', (operationId) => {
    expect(model.acceptedBy({ operationId })).toEqual([{ kind: 'bearer' }]);
  });

  it('GET /health needs no key', () => {
    expect(model.acceptedBy({ operationId: 'getHealth' })).toEqual([]);
  });
});

describe('buildSecurityModel', () => {
  const paths = { '/x': { get: { operationId: 'x', security: [{ bearer: [], other: [] }] } } };
  it('refuses a requirement that combines two schemes', () => {
    expect(() => buildSecurityModel({ paths, components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' }, other: { type: 'apiKey', in: 'header', name: 'x-key' } } } })).toThrow(/combining bearer and other/);
  });

  it('refuses a scheme it cannot read a key from', () => {
    expect(() => buildSecurityModel({ components: { securitySchemes: { cookie: { type: 'apiKey', in: 'cookie', name: 'session' } } } })).toThrow(/cookie/);
  });
});
