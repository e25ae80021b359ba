import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeListCursor, encodeListCursor, type CursorList, type CursorPositions } from '#src/http/list-cursor.ts';
import { createCursorBinder } from '#src/http/cursor-binding.ts';

const TIME = '2025-11-20T09:14:03.512408Z';
const UUID = '4688c676-42d3-49fa-b867-2bb0cba1bc1a';
const HASH = 'a'.repeat(64);
const GENERATION = 'gen_0mi7j743kQm9vYmFyYmF6cXV';
const POSITIONS: CursorPositions = {
  byok: { createdAt: TIME, id: UUID, provider: 'openai', sortOrder: 0 },
  keys: { createdAt: TIME, id: HASH },
  destinations: { createdAt: TIME, id: UUID },
  generations: { id: GENERATION },
};
const LISTS = Object.keys(POSITIONS) as CursorList[];
const json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('list cursors (unbound)', () => {
  it.each(LISTS)('%s: a position round-trips, in base64url', (list) => {
    const text = encodeListCursor(list, POSITIONS[list]);
    expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeListCursor(list, text)).toEqual(POSITIONS[list]);
  });

  it.each(LISTS.flatMap((list) => LISTS.filter((other) => other !== list).map((other) => [list, other] as const)))('a cursor of %s is not one of %s', (list, other) => {
    expect(decodeListCursor(other, encodeListCursor(list, POSITIONS[list] as never))).toBeUndefined();
  });

  it.each([
    ['keys', 'not-a-cursor'],
    ['keys', json({})],
    ['keys', json([])],
    ['keys', json('keys')],
    ['keys', json({ l: 'keys', c: '2025-02-30T10:00:00.000000Z', i: HASH })],
    ['keys', json({ l: 'keys', c: '2025-11-20T09:14:03.512Z', i: HASH })],
    ['keys', json({ l: 'keys', c: '2025-11-20T09:60:03.512408Z', i: HASH })],
    ['keys', json({ l: 'keys', c: TIME, i: UUID })],
    ['destinations', json({ l: 'destinations', c: TIME, i: HASH })],
    ['byok', json({ l: 'byok', c: TIME, i: UUID, p: 'openai', s: 2 ** 31 })],
    ['byok', json({ l: 'byok', c: TIME, i: UUID, p: 'openai', s: 1.5 })],
    ['byok', json({ l: 'byok', c: TIME, i: UUID, p: '', s: 0 })],
    ['byok', json({ l: 'byok', c: TIME, i: UUID, s: 0 })],
    ['generations', json({ l: 'generations', i: 'gen_short' })],
    ['generations', json({ i: GENERATION })],
  ] as const)('%s refuses %s', (list, text) => {
    expect(decodeListCursor(list, text)).toBeUndefined();
  });
});

describe('cursors bound to an account', () => {
  const binder = createCursorBinder(randomBytes(32));
  const bound = binder.encode('keys', 'account-a', POSITIONS.keys);
  const [payload, digest] = bound.split('.') as [string, string];
  const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;

  it('opens for its list and account', () => {
    expect(decodeListCursor('keys', payload)).toEqual(POSITIONS.keys);
    expect(binder.decode('keys', 'account-a', bound)).toEqual(POSITIONS.keys);
  });

  it('names no account', () => {
    expect(Buffer.from(payload, 'base64url').toString('utf8')).not.toContain('account-a');
  });

  it.each([
    ['another account', 'keys', 'account-b', bound],
    ['another list', 'byok', 'account-a', bound],
    ['no digest', 'keys', 'account-a', payload],
    ['an empty digest', 'keys', 'account-a', `${payload}.`],
    ['an altered digest', 'keys', 'account-a', `${payload}.${flip(digest, 0)}`],
    ['another spelling of the digest bytes', 'keys', 'account-a', `${payload}.${flip(digest, digest.length - 1)}`],
    ['an altered position', 'keys', 'account-a', `${json({ l: 'keys', c: TIME, i: 'b'.repeat(64) })}.${digest}`],
    ['a digest under another master key', 'keys', 'account-a', createCursorBinder(randomBytes(32)).encode('keys', 'account-a', POSITIONS.keys)],
  ] as const)('refuses %s', (_label, list, account, text) => {
    expect(binder.decode(list, account, text)).toBeUndefined();
  });
});
