/**
 * Generation ids: the spec's format, unique, and ordered by time as text, both byte-wise (the C collation)
 * and under a language collation (en-US), so the records' primary key takes new ids at its right edge.
 */
import { describe, expect, it } from 'vitest';
import type { Response } from 'express';
import { generationIdBound, generationIdTime, newGenerationId, requestIdOf } from '#src/http/generation-id.ts';

const FORMAT = /^gen_[A-Za-z0-9_-]{24}$/;

describe('newGenerationId', () => {
  it('has the format of the spec and never repeats', () => {
    const ids = Array.from({ length: 5000 }, newGenerationId);
    for (const id of ids) expect(id).toMatch(FORMAT);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('starts with the creation time in milliseconds, base 36', () => {
    const before = Date.now();
    const id = newGenerationId();
    const after = Date.now();
    const time = Number.parseInt(id.slice(4, 13), 36);
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(after);
  });

  it('sorts by creation time, byte-wise and in a language collation', async () => {
    const ids: string[] = [];
    for (let round = 0; round < 5; round += 1) {
      ids.push(newGenerationId());
      const start = Date.now();
      while (Date.now() === start) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect([...ids].sort()).toEqual(ids);
    expect([...ids].sort((left, right) => left.localeCompare(right, 'en-US'))).toEqual(ids);
  });

  it('gives ids made in one millisecond different random parts', () => {
    const ids = Array.from({ length: 200 }, newGenerationId);
    const sameMillisecond = ids.filter((id) => id.slice(4, 13) === ids[0]?.slice(4, 13));
    expect(new Set(sameMillisecond.map((id) => id.slice(13))).size).toBe(sameMillisecond.length);
  });
});

describe('generationIdTime and generationIdBound', () => {
  it("reads an id's time back", () => {
    const before = Date.now();
    const id = newGenerationId();
    expect(generationIdTime(id)).toBeGreaterThanOrEqual(before);
    expect(generationIdTime(id)).toBeLessThanOrEqual(Date.now());
    expect(generationIdTime(`${generationIdBound(Date.UTC(2026, 10, 26, 21, 0, 0, 5))}${'A'.repeat(15)}`)).toBe(Date.UTC(2026, 10, 26, 21, 0, 0, 5));
  });

  it.each([['too short', 'gen_abc'], ['another prefix', `run_${'a'.repeat(24)}`], ['a time with capitals', `gen_ABCDEFGHI${'a'.repeat(15)}`], ['a uuid', `gen_${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`]])('has no time for %s', (_label, text) => {
    expect(generationIdTime(text)).toBeUndefined();
  });

  // Random parts at both ends of base64url's order, and the characters a language collation ignores.
  const ids = (time: number) => ['AAAAAAAAAAAAAAA', '---------------', '_______________', 'zzzzzzzzzzzzzzz', '-_Az09-_Az09-_A'].map((random) => `${generationIdBound(time)}${random}`);

  it.each([
    ['byte-wise (the C collation)', (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0)],
    ['in a language collation (en-US)', (left: string, right: string) => left.localeCompare(right, 'en-US')],
  ])('puts every id of a millisecond at or above its bound and below the next one, %s', (_label, compare) => {
    const time = Date.UTC(2026, 10, 26, 21, 0, 0, 999);
    for (const id of ids(time)) {
      expect(compare(id, generationIdBound(time))).toBe(1);
      expect(compare(id, generationIdBound(time + 1))).toBe(-1);
      expect(compare(generationIdBound(time - 1), id)).toBe(-1);
    }
    for (const earlier of ids(time - 1)) for (const later of ids(time)) expect(compare(earlier, later)).toBe(-1);
  });
});

describe('requestIdOf', () => {
  function fakeResponse(locals: Record<string, unknown> = {}): { res: Response; headers: Record<string, string> } {
    const headers: Record<string, string> = {};
    const res = { locals, setHeader: (name: string, value: string) => (headers[name] = value) } as unknown as Response;
    return { res, headers };
  }

  it('is the generation id where the answer has one, and sets no header of its own', () => {
    const { res, headers } = fakeResponse({ generationId: 'gen_0mx0j47usD8Z4PnNbywFxBHH' });
    expect(requestIdOf(res)).toBe('gen_0mx0j47usD8Z4PnNbywFxBHH');
    expect(headers).toEqual({});
  });

  it('is otherwise a new id, in request-id alone, and the same one when asked again', () => {
    const { res, headers } = fakeResponse();
    const id = requestIdOf(res);
    expect(id).toMatch(FORMAT);
    expect(headers).toEqual({ 'request-id': id });
    expect(requestIdOf(res)).toBe(id);
  });
});
