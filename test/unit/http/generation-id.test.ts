/**
 * Generation ids: the spec's format, unique, and ordered by time as text, both byte-wise (the C collation)
 * and under a language collation (en-US), so the records' primary key takes new ids at its right edge.
 */
import { describe, expect, it } from 'vitest';
import { newGenerationId } from '#src/http/generation-id.ts';

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
