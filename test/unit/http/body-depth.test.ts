import { describe, expect, it } from 'vitest';
import { bodyDepthError, MAX_BODY_DEPTH } from '#src/http/body-depth.ts';

const arrays = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);
const objects = (depth: number): unknown => JSON.parse(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);

describe('bodyDepthError', () => {
  it.each([
    ['arrays at the limit', arrays(MAX_BODY_DEPTH), false],
    ['arrays one past it', arrays(MAX_BODY_DEPTH + 1), true],
    ['objects at the limit', objects(MAX_BODY_DEPTH), false],
    ['objects one past it', objects(MAX_BODY_DEPTH + 1), true],
    ['the deep branch after shallow ones', { a: 1, b: [1, 2], c: arrays(MAX_BODY_DEPTH + 5) }, true],
    ['a wide, shallow body', { messages: Array.from({ length: 10_000 }, () => ({ role: 'user', content: 'x' })) }, false],
    ['a scalar', 'text', false],
    ['nothing', undefined, false],
  ])('%s', (_case, body, refused) => {
    const error = bodyDepthError(body);
    expect(error !== undefined).toBe(refused);
    if (error) expect(error.publicMessage).toBe(`Invalid request parameters: the body nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels`);
  });

  it('refuses the shortest body too deep, given its length, and walks no body shorter', () => {
    const text = `${'['.repeat(MAX_BODY_DEPTH + 1)}${']'.repeat(MAX_BODY_DEPTH + 1)}`;
    expect(bodyDepthError(JSON.parse(text), text.length)).toBeDefined();
    // A body one character shorter cannot nest past the limit: the walk is skipped (its result would not be).
    expect(bodyDepthError(JSON.parse(text), text.length - 1)).toBeUndefined();
  });
});
