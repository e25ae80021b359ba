/**
 * The binary COPY file's text fields, byte for byte: each must be the UTF-8 of its value as `Buffer.from` (the
 * encoder the file was first written with) gives it, whichever path wrote it (a label's cached bytes, a text's
 * `Buffer#write`), for texts that are easy to get wrong: non-ASCII, astral, lone surrogates, empty, NUL (which
 * PostgreSQL's text refuses: the file carries it as written and the database's refusal sends the batch to the
 * INSERT, generation-store.test.ts), long and short, and the same label met again after others.
 */
import { describe, expect, it } from 'vitest';
import { COPY_COLUMN_NAMES, withGenerationsCopyFile } from '#src/observability/generation-copy.ts';
import type { GenerationRecord } from '#src/observability/build-generation-record.ts';

const TRICKY = ['', 'a', 'plain/ascii-model', 'ünïcode', 'é', '€ euro', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', '🙂', 'lone \ud800 high', 'lone \udc00 low', 'end \ud83d', 'nul \u0000 inside', '\u007f\u0080\u00ff\u0100', 'x'.repeat(16), 'y'.repeat(17), 'k'.repeat(64), 'z'.repeat(128), 'w'.repeat(129), 'z'.repeat(300), `${'a'.repeat(40)}ö`, 'quote " back \\ tab \t nl \n'];

const record = (text: string, index: number): GenerationRecord => ({
  id: `gen_${index}_${text}`, accountId: '0b6c7a9e-4f7e-4c1e-9d55-0123456789ab', workspaceId: '0B6C7A9E-4F7E-4C1E-9D55-0123456789AB', keyHash: text,
  createdAt: new Date(Date.UTC(2026, 10, 28, 12, 0, 0, 5)), requestedModel: text, model: text, responseModel: text, provider: text, providerName: text,
  isByok: true, stream: false, status: text as GenerationRecord['status'], httpStatus: 200, stopReason: text, errorType: text, errorMessage: text, inputTokens: 1, outputTokens: 2,
  cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, usageEstimated: false, cost: 0.5, timeToFirstByteMs: null, totalMs: 3,
  sessionId: text, userId: text, trace: { key: text }, attempts: [{ provider: text, status: 'success' }], toolSteps: null, moderation: null,
  prompt: null, completion: text as unknown as GenerationRecord['completion'], contentExpiresAt: null,
});

/** The file's tuples as each field's bytes (null for a NULL field). */
function tuples(file: Uint8Array): (Buffer | null)[][] {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const rows: (Buffer | null)[][] = [];
  let at = 19;
  for (;;) {
    const count = view.getInt16(at);
    at += 2;
    if (count === -1) break;
    const row: (Buffer | null)[] = [];
    for (let field = 0; field < count; field += 1) {
      const size = view.getInt32(at);
      at += 4;
      row.push(size < 0 ? null : Buffer.from(file.subarray(at, at + size)));
      at += Math.max(size, 0);
    }
    rows.push(row);
  }
  expect(at).toBe(file.length);
  return rows;
}

const TEXT_COLUMNS: readonly (keyof GenerationRecord)[] = ['id', 'keyHash', 'requestedModel', 'model', 'responseModel', 'provider', 'providerName', 'status', 'stopReason', 'errorType', 'errorMessage', 'sessionId', 'userId'];
const column = (name: keyof GenerationRecord) => COPY_COLUMN_NAMES.indexOf(name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`));

describe('the generations binary COPY file', () => {
  it("writes each text field as Buffer.from's UTF-8 of it, for tricky texts, in one batch and again in the next", async () => {
    // Twice, so a label's second batch is written from the bytes the first cached.
    for (let pass = 0; pass < 2; pass += 1) {
      const records = TRICKY.map(record);
      let rows: (Buffer | null)[][] = [];
      await withGenerationsCopyFile(records, async (file) => void (rows = tuples(file)));
      expect(rows).toHaveLength(records.length);
      records.forEach((written, index) => {
        for (const name of TEXT_COLUMNS) {
          expect(column(name), name).toBeGreaterThanOrEqual(0);
          expect(rows[index]![column(name)]!.equals(Buffer.from(written[name] as string, 'utf8')), `${name} of ${JSON.stringify(written[name])}`).toBe(true);
        }
        expect(rows[index]![column('attempts')]!.toString('utf8')).toBe(JSON.stringify(written.attempts));
        expect(rows[index]![column('completion')]!.equals(Buffer.from(JSON.stringify(written.completion), 'utf8'))).toBe(true);
      });
    }
  });

  it('writes a NULL for a missing text, and a label after a NULL in the right place', async () => {
    const written = { ...record('anthropic', 0), model: null, provider: null, stopReason: null, errorType: null, sessionId: null };
    let rows: (Buffer | null)[][] = [];
    await withGenerationsCopyFile([written], async (file) => void (rows = tuples(file)));
    for (const name of ['model', 'provider', 'stopReason', 'errorType', 'sessionId'] as const) expect(rows[0]![column(name)]).toBeNull();
    expect(rows[0]![column('providerName')]!.toString()).toBe('anthropic');
  });

  it('takes an integer column exactly when it is an integer in int32 range (-0 as 0), as before', async () => {
    const values: unknown[] = [0, -0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, -(2 ** 31) - 1, 1.5, -0.5, Number.NaN, Infinity, -Infinity, 2 ** 53, '5', true, {}];
    for (const value of values) {
      const accepted = Number.isInteger(value) && (value as number) >= -(2 ** 31) && (value as number) < 2 ** 31;
      const written = { ...record('x', 0), totalMs: value as number };
      let rows: (Buffer | null)[][] = [];
      const writing = withGenerationsCopyFile([written], async (file) => void (rows = tuples(file)));
      if (!accepted) {
        await expect(writing, String(value)).rejects.toThrow(/not a integer/);
        continue;
      }
      await writing;
      expect(rows[0]![column('totalMs')]!.readInt32BE(0), String(value)).toBe((value as number) | 0);
    }
  });
});
