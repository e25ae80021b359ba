/**
 * The `nextTick` entry src/serve/tick-object-maps.ts keeps alive holds the maps every later entry gets, across
 * full collections with no other entry alive: the condition for node's `nextTick` literal to keep monomorphic
 * feedback (bench/JOURNAL.md 2026-11-28, 19:05). Checked in a child Node with `--expose-gc` and V8's
 * `%HaveSameMap`, so the test's own process keeps its flags.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const MODULE = new URL('../../../src/serve/tick-object-maps.ts', import.meta.url).href;

// Entries come and go, four full collections run with none alive, then a fresh entry is compared with the kept one.
const CHILD = `
import { createHook } from 'node:async_hooks';
const { retainedTickObject } = await import(${JSON.stringify(MODULE)});
const noop = () => {};
for (let i = 0; i < 20000; i += 1) { process.nextTick(noop); if (i % 64 === 63) await new Promise((r) => setImmediate(r)); }
for (let i = 0; i < 4; i += 1) { await new Promise((r) => setImmediate(r)); globalThis.gc(); }
let fresh;
const hook = createHook({ init(id, type, trigger, resource) { if (type === 'TickObject') fresh ??= resource; } }).enable();
process.nextTick(noop);
hook.disable();
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)');
const kept = retainedTickObject();
console.log(JSON.stringify({ kept: kept !== undefined, sameMap: kept !== undefined && sameMap(kept, fresh) }));
`;

describe('tick-object-maps', () => {
  it('a fresh nextTick entry has the kept entry map after full collections', async () => {
    const { stdout } = await run(process.execPath, ['--expose-gc', '--allow-natives-syntax', '--input-type=module', '-e', CHILD]);
    expect(JSON.parse(stdout)).toEqual({ kept: true, sameMap: true });
  });
});
