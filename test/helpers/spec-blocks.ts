/**
 * Holds the blocks the gateway's tools produce to the spec: each must be a valid `ResponseContentBlock`, the
 * schema a response's `content` items (and a stream's `content_block_start`) are validated against.
 */
import { expect } from 'vitest';
import { checkComponentSchema } from '#test/helpers/spec-validator.ts';

/** Fails the test when `block` is not a valid response content block of the spec. */
export function expectSpecBlock(block: unknown): void {
  const check = checkComponentSchema('ResponseContentBlock', block);
  expect(check.errors, JSON.stringify(block).slice(0, 300)).toEqual([]);
  expect(check.valid).toBe(true);
}
