import { describe, expect, it } from 'vitest';
import { withoutDateSuffix } from '#src/catalog/model-id.ts';

describe('withoutDateSuffix', () => {
  it.each([
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ['claude-opus-4-7', 'claude-opus-4-7'],
    ['claude-sonnet-5-5', 'claude-sonnet-5-5'],
    ['us.anthropic.claude-sonnet-4-20250514-v1:0', 'us.anthropic.claude-sonnet-4-20250514-v1:0'],
    ['claude-3-7-sonnet-2025021', 'claude-3-7-sonnet-2025021'],
    ['claude-20250929-x', 'claude-20250929-x'],
  ])('%s -> %s', (id, expected) => {
    expect(withoutDateSuffix(id)).toBe(expected);
  });
});
