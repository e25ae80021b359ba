import { describe, expect, it } from 'vitest';
import { breakdownOfSmaps } from '../../../bench/memory-mappings.ts';

/** One smaps entry: its header line and the Rss line (the fields between do not matter here). */
function entry(range: string, perms: string, name: string, rssKb: number): string {
  return [`${range} ${perms} 00000000 00:00 0          ${name}`, 'Size:               256 kB', `Rss:             ${rssKb} kB`, 'Pss:             0 kB', 'VmFlags: rd wr mr mw me ac'].join('\n');
}

describe('breakdownOfSmaps', () => {
  it.each([
    { what: 'a 256 KiB anonymous mapping at a 256 KiB boundary is a V8 page', range: '3e8fb840000-3e8fb880000', name: '', kind: 'v8Pages' },
    { what: 'a 256 KiB anonymous mapping off a 256 KiB boundary is not', range: '3e8fb841000-3e8fb881000', name: '', kind: 'otherAnonymous' },
    { what: 'the brk heap is malloc', range: '06bb6000-09000000', name: '[heap]', kind: 'malloc' },
    { what: 'an arena at a 64 MiB boundary is malloc', range: '7f72b8000000-7f72b872d000', name: '', kind: 'malloc' },
    { what: 'a mapping over 64 MiB at a 64 MiB boundary is not an arena', range: '7f7000000000-7f7008000000', name: '', kind: 'otherAnonymous' },
    { what: 'WebAssembly memory (128 MiB, unaligned) is other', range: '7f6e7e270000-7f6e86270000', name: '', kind: 'otherAnonymous' },
    { what: 'the Node binary is a file', range: '00400000-00746000', name: '/usr/bin/node', kind: 'fileAndSpecial' },
    { what: 'the stack is special', range: '7ffc0000000-7ffc0021000', name: '[stack]', kind: 'fileAndSpecial' },
  ])('$what', ({ range, name, kind }) => {
    const totals = breakdownOfSmaps(entry(range, 'rw-p', name, 100));
    expect(totals).toEqual({ v8Pages: 0, malloc: 0, otherAnonymous: 0, fileAndSpecial: 0, [kind]: 100 * 1024 });
  });

  it('sums the resident bytes of every mapping by kind', () => {
    const text = [
      entry('3e8fb840000-3e8fb880000', 'rw-p', '', 256),
      entry('5b94c9c0000-5b94ca00000', 'rw-p', '', 120),
      entry('06bb6000-09000000', 'rw-p', '[heap]', 40_000),
      entry('7f72b8000000-7f72b872d000', 'rw-p', '', 7_000),
      entry('7f72b872d000-7f72bc000000', '---p', '', 0),
      entry('7f6e7e270000-7f6e86270000', 'rw-p', '', 12_000),
      entry('00400000-00746000', 'r--p', '/usr/bin/node', 3_000),
    ].join('\n');
    expect(breakdownOfSmaps(text)).toEqual({ v8Pages: 376 * 1024, malloc: 47_000 * 1024, otherAnonymous: 12_000 * 1024, fileAndSpecial: 3_000 * 1024 });
  });
});
