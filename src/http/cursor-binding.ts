/**
 * Binds a list's cursor to the list and to the account it was returned to: `<cursor>.<digest>`, the digest an
 * HMAC-SHA256 (cut to 128 bits) over the list, the account id and the cursor, keyed by a key derived from the
 * master key. Queries are always scoped to the caller's account, so a replayed cursor never revealed another
 * account's items; the digest makes such a cursor (or one altered by hand) a clear 400 instead of a silent page
 * of the caller's own items at an arbitrary position. The master key is the secret every instance sharing the
 * database already shares (src/byok/master-key.ts), so a cursor from one instance opens on another. The
 * account id is in the digest only, never in the cursor.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { decodeListCursor, encodeListCursor, type CursorList, type CursorPositions } from '#src/http/list-cursor.ts';

/** Encodes and checks account-bound cursors. */
export interface CursorBinder {
  /** The cursor of `position` in `list`, bound to `accountId`. */
  encode<L extends CursorList>(list: L, accountId: string, position: CursorPositions[L]): string;
  /** The position of a cursor this binder made for `list` and `accountId`; undefined for any other text. */
  decode<L extends CursorList>(list: L, accountId: string, text: string): CursorPositions[L] | undefined;
}

const DIGEST_BYTES = 16;
// Fixed label: the cursor key is the master key's HMAC of it, so cursor digests never reuse the master key itself.
const KEY_LABEL = 'switchboard list cursor key v1';

/** A binder keyed by `masterKey` (the raw 32 bytes). */
export function createCursorBinder(masterKey: Buffer): CursorBinder {
  const key = createHmac('sha256', masterKey).update(KEY_LABEL).digest();
  // NUL separates the parts: neither a list name, an account id nor base64url text contains it.
  const digestOf = (list: CursorList, accountId: string, cursor: string): Buffer =>
    createHmac('sha256', key).update(`${list}\0${accountId}\0${cursor}`).digest().subarray(0, DIGEST_BYTES);
  return {
    encode(list, accountId, position) {
      const cursor = encodeListCursor(list, position);
      return `${cursor}.${digestOf(list, accountId, cursor).toString('base64url')}`;
    },
    decode(list, accountId, text) {
      const dot = text.lastIndexOf('.');
      if (dot < 0) return undefined;
      const cursor = text.slice(0, dot);
      // The digest is compared as text: decoding it would accept other spellings of the same bytes.
      const given = Buffer.from(text.slice(dot + 1));
      const expected = Buffer.from(digestOf(list, accountId, cursor).toString('base64url'));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      return decodeListCursor(list, cursor);
    },
  };
}
