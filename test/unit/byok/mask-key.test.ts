import { describe, expect, it } from 'vitest';
import { maskProviderKey } from '#src/byok/mask-key.ts';

describe('maskProviderKey', () => {
  it.each([
    ['sk-proj-4f9b2c7d8e1a6f3b0c5d9e2a7b4c1f8e', 'sk-…1f8e'],
    ['sk-ant-api03-Vb7Qm2xK9pL4tR8wN3jH6fD1sA5gZ0cE', 'sk-…Z0cE'],
    ['fw_3ZkXq9sQJv8mN2pL7rT4wY', 'fw_…T4wY'],
    ['AIzaSyD4x8Qm2pL7rT4wY9sQJv8mN2pL7', '…2pL7'],
    ['0123456789abcdef0123', '…0123'],
    ['short-key', '…'],
    ['x', '…'],
    ['sixteen-chars-ab', '…s-ab'],
    ['fifteen-chars-a', '…'],
  ])('%s -> %s', (key, label) => {
    expect(maskProviderKey(key)).toBe(label);
  });

  it('never shows more than four characters of the secret part', () => {
    const key = 'sk-' + 'q'.repeat(40) + 'wxyz';
    const label = maskProviderKey(key);
    expect(label).toBe('sk-…wxyz');
    expect(label.replace('sk-', '').replace('…', '').length).toBeLessThanOrEqual(4);
  });
});
