/**
 * What the base64 check of image and document sources costs per call (src/request/base64-sources.ts), for
 * this checkout's implementation and, with `--against <checkout>`, another commit's (a detached worktree of
 * main: `git worktree add --detach /work/wt/base-x main`). Two measures:
 *
 * - time (default): CPU milliseconds per call on four 5 MB texts (standard base64 as the SDKs send it, the
 *   URL-safe alphabet, MIME line breaks every 76 characters, and one stray character at the very end), the two
 *   implementations taking turns round by round, medians over the rounds. Load moves both alike; the ratio is
 *   the figure, not the milliseconds.
 * - `--instructions`: instructions per call on the standard text counted by valgrind's callgrind
 *   (bench/callgrind-rounds.ts), which do not move with the machine's load. Needs valgrind. Under valgrind the
 *   CPU it emulates decides which of simdutf's kernels runs (AVX2 at most), so a native decode may count more
 *   instructions there than it runs on the machine itself.
 *
 * Usage: node bench/base64-check.ts [--against <checkout>] [--rounds 30] [--instructions]
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { countChildRounds } from './callgrind-rounds.ts';

type Check = (data: string) => string | undefined;

const SIZE_BYTES = 3_750_000; // 5,000,000 characters of base64
const CASES = ['standard', 'url-safe', 'mime-lines', 'stray-at-end'] as const;
type CaseName = (typeof CASES)[number];

/** The same pseudo-random bytes on every run, so every implementation reads the same text. */
function imageBytes(): Buffer {
  const bytes = Buffer.allocUnsafe(SIZE_BYTES);
  let state = 1;
  for (let index = 0; index < bytes.length; index += 1) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[index] = state >>> 24;
  }
  return bytes;
}

/** A case's text as the gateway holds it: a value JSON.parse made from a request body. */
function caseText(name: CaseName, bytes: Buffer): string {
  const standard = bytes.toString('base64');
  const text =
    name === 'standard' ? standard
    : name === 'url-safe' ? bytes.toString('base64url')
    : name === 'mime-lines' ? (standard.match(/.{1,76}/g) ?? []).join('\r\n')
    : `${standard.slice(0, -1)}.`;
  return (JSON.parse(JSON.stringify({ data: text })) as { data: string }).data;
}

async function loadCheck(checkout: string): Promise<Check> {
  const module = (await import(pathToFileURL(`${checkout}/src/request/base64-sources.ts`).href)) as { base64Problem: Check };
  return module.base64Problem;
}

function cpuMs(check: Check, text: string, calls: number): number {
  const start = process.cpuUsage();
  for (let call = 0; call < calls; call += 1) check(text);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / calls;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function timeRounds(targets: { label: string; check: Check }[], rounds: number): Promise<void> {
  const bytes = imageBytes();
  for (const name of CASES) {
    const text = caseText(name, bytes);
    const results = targets.map((target) => ({ ...target, answer: target.check(text), samples: [] as number[] }));
    for (let warm = 0; warm < 3; warm += 1) for (const target of results) target.check(text);
    for (let round = 0; round < rounds; round += 1) for (const target of results) target.samples.push(cpuMs(target.check, text, 5));
    const line = results.map((target) => `${target.label} ${median(target.samples).toFixed(2)} ms`).join(', ');
    const ratio = results.length === 2 ? ` (${(median(results[0]!.samples) / median(results[1]!.samples)).toFixed(2)}×)` : '';
    console.log(`${name.padEnd(13)} ${line}${ratio}; answer ${JSON.stringify(results[0]!.answer ?? 'accepted')}`);
    if (results.some((target) => target.answer !== results[0]!.answer)) throw new Error(`${name}: the implementations disagree`);
  }
}

/** The child under valgrind: a round is `calls` checks of the standard text, between `go` and `measured`. */
async function child(checkout: string, rounds: number, calls: number): Promise<void> {
  const check = await loadCheck(checkout);
  const text = caseText('standard', imageBytes());
  for (let warm = 0; warm < 3; warm += 1) check(text);
  const waitFor = (word: string) => new Promise<void>((resolve) => process.once('message', (message) => (message === word ? resolve() : undefined)));
  for (let round = 0; round < rounds; round += 1) {
    const go = waitFor('go');
    process.send?.({ ready: true });
    await go;
    for (let call = 0; call < calls; call += 1) check(text);
    const next = waitFor('next');
    process.send?.({ measured: calls });
    await next;
  }
  process.disconnect?.();
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      against: { type: 'string' },
      rounds: { type: 'string', default: '30' },
      instructions: { type: 'boolean', default: false },
      child: { type: 'string' },
    },
  });
  const rounds = Number(values.rounds);
  if (values.child !== undefined) return child(values.child, rounds, 4);
  const here = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
  const checkouts = [...(values.against ? [{ label: 'against', checkout: values.against }] : []), { label: 'this', checkout: here }];
  if (!values.instructions) {
    const targets = await Promise.all(checkouts.map(async ({ label, checkout }) => ({ label, check: await loadCheck(checkout) })));
    await timeRounds(targets, rounds);
    return;
  }
  for (const { label, checkout } of checkouts) {
    const counts = await countChildRounds({
      script: fileURLToPath(import.meta.url),
      args: ['--child', checkout, '--rounds', String(Math.min(rounds, 3))],
      nodeFlags: [],
      rounds: Math.min(rounds, 3),
      name: `base64-${label}`,
      keepDumps: false,
    });
    const perCall = counts.map((count) => `${(count.total / 1e6).toFixed(2)} M (GC ${(count.gc / 1e6).toFixed(2)}, compilers ${(count.compiler / 1e6).toFixed(2)})`);
    console.log(`${label.padEnd(8)} standard 5 MB text: ${perCall.join(' / ')} instructions per call`);
  }
}

await main();
