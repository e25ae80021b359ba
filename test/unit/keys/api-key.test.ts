import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateRawApiKey, hashApiKey, suppliedKeyProblem } from '#src/keys/api-key.ts';

describe('gateway API keys', () => {
  it('look like sb-<43 base64url characters> and are all different', () => {
    const keys = new Set(Array.from({ length: 200 }, generateRawApiKey));
    expect(keys.size).toBe(200);
    for (const key of keys) expect(key).toMatch(/^sb-[A-Za-z0-9_-]{43}$/);
  });

  it('hash to the SHA-256 hex of the raw key', () => {
    const key = 'sb-KQn2h8K9z3B0AO4QpYz3WQggR09shggYRQdCBAncJLA';
    expect(hashApiKey(key)).toBe('7442f9aba55fdc9a523f433fdd3eaa9ff91b0b62e6bd3582ca93d9428ebe0b1b');
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
  });

  it('refuse short or spaced operator-supplied keys', () => {
    expect(suppliedKeyProblem('too-short')).toMatch(/at least 32/);
    expect(suppliedKeyProblem('x'.repeat(20) + ' ' + 'y'.repeat(20))).toMatch(/whitespace/);
    expect(suppliedKeyProblem(generateRawApiKey())).toBeUndefined();
  });
});
