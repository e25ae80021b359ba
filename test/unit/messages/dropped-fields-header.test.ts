import { describe, expect, it } from 'vitest';
import { withDroppedFieldsHeader } from '#src/messages/dropped-fields-header.ts';

describe('withDroppedFieldsHeader', () => {
  const rateLimits = { 'anthropic-ratelimit-requests-limit': '60' };
  it.each([
    ['nothing dropped, no headers', undefined, undefined, undefined],
    ['nothing dropped keeps the headers as they are', rateLimits, [], rateLimits],
    ['dropped fields alone', undefined, ['context_management', 'diagnostics'], { 'X-Switchboard-Dropped-Fields': 'context_management, diagnostics' }],
    ['beside other headers', rateLimits, ['messages[].content[].citations'], { ...rateLimits, 'X-Switchboard-Dropped-Fields': 'messages[].content[].citations' }],
  ])('%s', (_name, headers, dropped, expected) => {
    expect(withDroppedFieldsHeader(headers, dropped)).toEqual(expected);
  });

  it('returns the same object when nothing was dropped (no copy on the usual answer)', () => {
    expect(withDroppedFieldsHeader(rateLimits, undefined)).toBe(rateLimits);
  });
});
