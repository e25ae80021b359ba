import { describe, expect, it } from 'vitest';
import { presentedKeys, type AcceptedScheme } from '#src/http/presented-keys.ts';

const BEARER_ONLY: AcceptedScheme[] = [{ kind: 'bearer' }];
const BOTH: AcceptedScheme[] = [{ kind: 'bearer' }, { kind: 'header', name: 'x-api-key' }];
const GATEWAY = 'sb-KQn2h8K9z3B0AO4QpYz3WQggR09shggYRQdCBAncJLA';
const OTHER_GATEWAY = 'sb-7Qd1Zc0pL2mN4bV6xT8rY0wE2qA4sD6fG8hJ0kL2zXc';
const PROVIDER = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz';
const BOOTSTRAP = 'an-operator-supplied-management-key-0123456789';

describe('presentedKeys', () => {
  it.each([
    ['no header', {}, BOTH, { problem: 'missing' }],
    ['a Bearer key', { authorization: `Bearer ${GATEWAY}` }, BOTH, { keys: [GATEWAY] }],
    ['the Bearer scheme in any case, with trailing space', { authorization: `bearer   ${GATEWAY}  ` }, BOTH, { keys: [GATEWAY] }],
    ['an x-api-key', { 'x-api-key': GATEWAY }, BOTH, { keys: [GATEWAY] }],
    ['an x-api-key with surrounding space', { 'x-api-key': `  ${GATEWAY} ` }, BOTH, { keys: [GATEWAY] }],
    ['an empty x-api-key', { 'x-api-key': '  ' }, BOTH, { problem: 'missing' }],
    ['an x-api-key where only Bearer is accepted', { 'x-api-key': GATEWAY }, BEARER_ONLY, { problem: 'missing' }],
    ['a Basic Authorization alone', { authorization: 'Basic dXNlcjpwYXNz' }, BOTH, { problem: 'malformed-authorization' }],
    ['Bearer without a key', { authorization: 'Bearer' }, BOTH, { problem: 'malformed-authorization' }],
    ['a Basic Authorization next to an x-api-key', { authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': GATEWAY }, BOTH, { keys: [GATEWAY] }],
    ['a gateway key as Bearer and a provider key in x-api-key', { authorization: `Bearer ${GATEWAY}`, 'x-api-key': PROVIDER }, BOTH, { keys: [GATEWAY, PROVIDER] }],
    ['a provider key as Bearer and a gateway key in x-api-key', { authorization: `Bearer ${PROVIDER}`, 'x-api-key': GATEWAY }, BOTH, { keys: [GATEWAY, PROVIDER] }],
    ['two gateway keys: Authorization first', { authorization: `Bearer ${OTHER_GATEWAY}`, 'x-api-key': GATEWAY }, BOTH, { keys: [OTHER_GATEWAY, GATEWAY] }],
    ['an unprefixed key and a provider key: Authorization first', { authorization: `Bearer ${BOOTSTRAP}`, 'x-api-key': PROVIDER }, BOTH, { keys: [BOOTSTRAP, PROVIDER] }],
    ['the same key twice', { authorization: `Bearer ${GATEWAY}`, 'x-api-key': GATEWAY }, BOTH, { keys: [GATEWAY] }],
    ['nothing accepted (an operation without security)', { authorization: `Bearer ${GATEWAY}` }, [], { problem: 'missing' }],
    ['x-api-key sent twice (joined by Node)', { 'x-api-key': `${GATEWAY}, ${GATEWAY}` }, BOTH, { problem: 'repeated', header: 'x-api-key' }],
    ['two different keys in one x-api-key', { 'x-api-key': `${GATEWAY}, ${OTHER_GATEWAY}` }, BOTH, { problem: 'repeated', header: 'x-api-key' }],
    ['a supplied key with a comma of its own is one key', { 'x-api-key': 'operator,supplied,key-0123456789abcdef0123' }, BOTH, { keys: ['operator,supplied,key-0123456789abcdef0123'] }],
    ['a Bearer supplied key with a comma of its own', { authorization: 'Bearer operator,supplied,key-0123456789abcdef0123' }, BOTH, { keys: ['operator,supplied,key-0123456789abcdef0123'] }],
    ['Authorization sent twice (joined by fetch)', { authorization: `Bearer ${GATEWAY}, Bearer ${GATEWAY}` }, BOTH, { problem: 'repeated', header: 'Authorization' }],
    ['a repeated x-api-key next to a Bearer key', { authorization: `Bearer ${GATEWAY}`, 'x-api-key': `${PROVIDER}, ${PROVIDER}` }, BOTH, { keys: [GATEWAY] }],
    ['a repeated Authorization next to an x-api-key', { authorization: `Bearer ${PROVIDER}, Bearer ${PROVIDER}`, 'x-api-key': GATEWAY }, BOTH, { keys: [GATEWAY] }],
    ['a repeated Authorization and a Basic one: the repeat is named', { authorization: 'Basic a, Basic b' }, BOTH, { problem: 'repeated', header: 'Authorization' }],
  ])('%s', (_case, headers, schemes, expected) => {
    expect(presentedKeys(headers, schemes)).toEqual(expected);
  });

  it('reads a header name declared in any case', () => {
    expect(presentedKeys({ 'x-api-key': GATEWAY }, [{ kind: 'header', name: 'X-Api-Key' }])).toEqual({ keys: [GATEWAY] });
  });
});
