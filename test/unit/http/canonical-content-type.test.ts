import { describe, expect, it } from 'vitest';
import { canonicalJsonContentType, mediaTypeOf } from '#src/http/canonical-content-type.ts';

describe('canonicalJsonContentType', () => {
  it.each([
    ['application/json', 'application/json'],
    ['application/json; charset=utf-8', 'application/json'],
    ['Application/JSON;x=1', 'application/json'],
    ['text/plain; x=1', 'text/plain; x=1'],
    [undefined, undefined],
  ])('%j becomes %j', (before, after) => {
    const req = { headers: before === undefined ? {} : { 'content-type': before } };
    let called = false;
    canonicalJsonContentType(req as never, {} as never, () => (called = true));
    expect(req.headers['content-type' as keyof typeof req.headers]).toBe(after);
    expect(called).toBe(true);
  });

  it('reads the media type without parameters', () => {
    expect(mediaTypeOf(' Application/Json ; charset=utf-8')).toBe('application/json');
  });
});
