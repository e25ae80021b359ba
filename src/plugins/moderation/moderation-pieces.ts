/**
 * How the texts to screen meet OpenAI's moderation endpoint: cut into pieces it accepts, grouped into calls of
 * a bounded number of inputs, and remembered once passed, so that an agent's loop, which sends its whole
 * history again on every step, has only what is new screened.
 *
 * - A piece is at most `PIECE_CHARACTERS` characters (about 2,000 tokens at 4 characters a token): the
 *   endpoint classifies long inputs in chunks of about 4,000 tokens and truncates past about 32,000, and a
 *   compatible server may refuse a long input outright; a Claude Code session's system prompt (15,000 to
 *   20,000 tokens) or a whole file in a tool result is several pieces. Cuts fall on a line break or a space
 *   where one is near, so a word is not cut in two.
 * - A call carries at most `INPUTS_PER_CALL` inputs; more pieces make several calls, at most
 *   `PARALLEL_CALLS` under way at once (a long first turn must not burst dozens of calls at the endpoint).
 * - Passed pieces are remembered by a SHA-256 of the caller's account, the model and the piece (never the text
 *   itself), in a bounded least-recently-used set held in the gateway's memory only. A flagged piece is not
 *   remembered: it is screened again when it comes back. Keyed by account so that one account's screening
 *   time says nothing of what another sent.
 * @see https://developers.openai.com/api/docs/guides/moderation
 */
import { createHash } from 'node:crypto';

/** The most characters of one input. */
export const PIECE_CHARACTERS = 8_000;
/** The most inputs of one call. */
export const INPUTS_PER_CALL = 32;
/** The most screening calls of one request under way at once, whatever the engine. */
export const PARALLEL_CALLS = 4;
/** The most passed pieces remembered by one gateway process. */
export const REMEMBERED_PIECES = 20_000;

/** Where to cut a text longer than `limit` at or before `limit`: a line break, else a space, in the window's second half; else `limit`. */
function cutAt(text: string, start: number, limit: number): number {
  const end = start + limit;
  const floor = start + Math.floor(limit / 2);
  const lineBreak = text.lastIndexOf('\n', end - 1);
  if (lineBreak >= floor) return lineBreak + 1;
  const space = text.lastIndexOf(' ', end - 1);
  if (space >= floor) return space + 1;
  // Never between the two halves of a surrogate pair.
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/** A text in pieces of at most `limit` characters, in order; the whole text when it is short enough. */
export function splitText(text: string, limit = PIECE_CHARACTERS): string[] {
  if (text.length <= limit) return [text];
  const pieces: string[] = [];
  let start = 0;
  while (text.length - start > limit) {
    const end = cutAt(text, start, limit);
    pieces.push(text.slice(start, end));
    start = end;
  }
  pieces.push(text.slice(start));
  return pieces;
}

/** Items in groups of at most `size`, in order. */
export function inGroups<T>(items: readonly T[], size = INPUTS_PER_CALL): T[][] {
  const groups: T[][] = [];
  for (let index = 0; index < items.length; index += size) groups.push(items.slice(index, index + size));
  return groups;
}

/** The passed pieces a gateway remembers, by digest; least recently seen forgotten first. */
export class PassedPieces {
  readonly #digests = new Set<string>();
  readonly capacity: number;

  constructor(capacity = REMEMBERED_PIECES) {
    this.capacity = capacity;
  }

  /** Whether the digest passed before; a hit counts as a use. */
  has(digest: string): boolean {
    if (!this.#digests.has(digest)) return false;
    this.#digests.delete(digest);
    this.#digests.add(digest);
    return true;
  }

  /** Remembers a passed digest, forgetting the least recently used beyond the capacity. */
  add(digest: string): void {
    this.#digests.delete(digest);
    this.#digests.add(digest);
    if (this.#digests.size > this.capacity) this.#digests.delete(this.#digests.values().next().value as string);
  }

  /** How many digests are remembered. */
  get size(): number {
    return this.#digests.size;
  }
}

/** The digest a piece is remembered by, for one account and one moderation model. */
export function pieceDigest(accountId: string, model: string, piece: string): string {
  return createHash('sha256').update(accountId).update('\0').update(model).update('\0').update(piece).digest('base64url');
}

/** A piece still to screen, with its digest. */
export interface PendingPiece {
  text: string;
  digest: string;
}

/**
 * The pieces (of at most `limit` characters) of the texts not passed before, each once (a text repeated in one
 * request is screened once).
 */
export function piecesToScreen(texts: readonly string[], passed: PassedPieces, accountId: string, model: string, limit = PIECE_CHARACTERS): PendingPiece[] {
  const pending = new Map<string, PendingPiece>();
  for (const text of texts) {
    for (const piece of splitText(text, limit)) {
      const digest = pieceDigest(accountId, model, piece);
      if (!pending.has(digest) && !passed.has(digest)) pending.set(digest, { text: piece, digest });
    }
  }
  return [...pending.values()];
}

/** What `runBounded` ran: each item's result (undefined when its task never started), and the first failure. */
export interface BoundedRun<R> {
  results: (R | undefined)[];
  failure?: { error: unknown };
}

/**
 * Runs `task` on the items in order, at most `limit` at once. Once a task fails or a result says `stop`, no
 * further task starts; those under way are waited for, so what they cost is known before the caller returns.
 */
export async function runBounded<T, R>(items: readonly T[], task: (item: T) => Promise<R>, options: { limit?: number; stop?: (result: R) => boolean } = {}): Promise<BoundedRun<R>> {
  const run: BoundedRun<R> = { results: items.map(() => undefined) };
  let next = 0;
  let halted = false;
  const worker = async (): Promise<void> => {
    while (!halted && next < items.length) {
      const index = next++;
      try {
        const result = await task(items[index] as T);
        run.results[index] = result;
        if (options.stop?.(result)) halted = true;
      } catch (error) {
        run.failure ??= { error };
        halted = true;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.limit ?? PARALLEL_CALLS, items.length) }, worker));
  return run;
}
