/**
 * Keeps one of Node's `process.nextTick` queue entries alive for the life of the process, so that the hidden
 * classes (V8 maps) of those entries are never collected. Imported first by the modules that start a gateway
 * (src/cli.ts, src/serve/start-gateway.ts): it must run before a full garbage collection has freed those maps.
 *
 * Why (bench/JOURNAL.md 2026-11-28, 19:05): Node 24's `nextTick` builds each entry as an object literal whose
 * first three keys are computed symbols (async id, trigger id, async context frame). V8 defines such keys
 * through `Runtime_DefineKeyedOwnPropertyInLiteral` unless the literal site's feedback is monomorphic, and
 * that feedback holds the maps weakly. An entry lives only until its callback runs, so a full collection that
 * finds none alive frees the maps and clears the feedback; the next `nextTick` sees a map the cleared slot
 * does not match and V8 marks the site megamorphic, for good (it has no polymorphic state for this site).
 * From then on every `nextTick` goes through the runtime (three calls of about 1.3 k instructions each in a
 * small script; 32 calls, about 42 k instructions, for the 8 `nextTick`s of a JSON request in the gateway). A pass-through proxy rarely has a full
 * collection, so it keeps the fast path; the gateway, with a larger heap, has them early.
 *
 * A retained entry keeps its map, and through the map's back pointers every map the site's slots record,
 * alive. The only way to reach an entry is an async hook's `init`, enabled for one `nextTick` here and then
 * disabled (no hook stays installed). Its callback has run and it holds nothing but a no-op function.
 * What this cannot prevent: a field of the entry changing representation (an async id beyond V8's small
 * integers, 2^30, after about a billion async resources) makes V8 replace the maps once, after which the site
 * is megamorphic again; the gateway is then as it was without this module.
 */
import { createHook } from 'node:async_hooks';

let retained: object | undefined;

const hook = createHook({
  init(_asyncId, type, _triggerAsyncId, resource) {
    if (type === 'TickObject') retained ??= resource;
  },
});
hook.enable();
process.nextTick(() => {});
hook.disable();

/** The retained `nextTick` entry (undefined if Node gave the hook none); exported for the guard test. */
export function retainedTickObject(): object | undefined {
  return retained;
}
