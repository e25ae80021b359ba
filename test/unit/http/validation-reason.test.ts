import { describe, expect, it } from 'vitest';
import { validationReason } from '#src/http/validation-reason.ts';
import { KEY_MUST_BE_STRING } from '#src/byok/parse-provider-key.ts';

describe('validationReason', () => {
  it.each<[string, { path: string; message: string }[], string | null]>([
    ['a JSON object as the BYOK key', [{ path: '/body/key', message: 'must be string' }], KEY_MUST_BE_STRING],
    ['the key among other complaints', [{ path: '/body/name', message: 'must NOT have more than 255 characters' }, { path: '/body/key', message: 'must be string' }], KEY_MUST_BE_STRING],
    ['an empty key (the validator says enough)', [{ path: '/body/key', message: 'must NOT have fewer than 1 characters' }], null],
    ['a string expected elsewhere', [{ path: '/body/name', message: 'must be string' }], null],
    ['a nested key field', [{ path: '/body/metadata/key', message: 'must be string' }], null],
    ['a NUL in user', [{ path: '/body/user', message: 'must match pattern "^[^\\u0000]*$"' }], 'user must not contain the NUL character (U+0000)'],
    ['a NUL in a nested field', [{ path: '/body/a/0/b', message: 'must match pattern "^[^\\u0000]*$"' }], 'a[0].b must not contain the NUL character (U+0000)'],
    ['a header value Node cannot send', [{ path: '/body/headers/X-Tenant', message: 'must match pattern "^[\\t\\x20-\\x7E\\x80-\\xFF]+$"' }], 'headers.X-Tenant must be text an HTTP header can carry: tabs, printable ASCII and Latin-1, no line breaks or other control characters'],
    ['a blank destination credential', [{ path: '/body/secret_key', message: 'must match pattern "\\S"' }], 'secret_key is blank (only white space): send the credential itself'],
    ['another pattern', [{ path: '/body/user', message: 'must match pattern "^[a-z]+$"' }], null],
    ['no complaint', [], null],
  ])('%s', (_name, details, reason) => {
    expect(validationReason(details)).toBe(reason);
  });
});

describe('validationReason for plugin ids', () => {
  const complaint = [{ path: '/body/plugins/1/id', message: 'must be equal to constant' }];
  it.each<[string, unknown, string | null]>([
    ['an unknown id, named', { plugins: [{ id: 'web' }, { id: 'pdf-ocr' }] }, 'plugins[1].id: unknown plugin "pdf-ocr" (this gateway has auto-router, response-healing, context-compression, file-parser, moderation, web-fetch, web)'],
    ['a known id (another complaint about the entry)', { plugins: [{ id: 'web' }, { id: 'moderation' }] }, null],
    ['no id at that position', { plugins: [{ id: 'web' }] }, null],
    ['no body', undefined, null],
  ])('%s', (_name, body, reason) => {
    expect(validationReason(complaint, body)).toBe(reason);
  });
});
