/**
 * `npm run bench -- --streams 1000`: many streams open at once, as a gateway in front of slow models holds
 * them. The upstream trickles (one delta a second for a while), each client opens its stream and reads it to
 * the end; once every stream has delivered its first delta, the target's RSS is sampled for a few seconds.
 * The aim: 1,000 open streams in at most 300 MB.
 */
import { Agent, request } from 'undici';
import { megabytes, RssSampler } from './process-stats.ts';
import { fixed } from './results-table.ts';
import type { OpenStreamsFigures } from './aims.ts';
import type { Target } from './targets.ts';

/** How many streams, and how long to wait for them to open. */
export interface OpenStreamsOptions {
  streams: number;
  openTimeoutMs: number;
  body: string;
}

/** The figures and the markdown section of one run. */
export interface OpenStreamsOutcome {
  figures: OpenStreamsFigures;
  markdown: string;
}

/** One stream: resolves `opened` at its first text delta, `done` with a problem or undefined at its end. */
function openStream(agent: Agent, target: Target, body: string): { opened: Promise<void>; done: Promise<string | undefined> } {
  let markOpened: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (markOpened = resolve));
  const done = (async (): Promise<string | undefined> => {
    try {
      const response = await request(new URL(target.path, target.origin), { method: 'POST', headers: target.headers, body, dispatcher: agent });
      let text = '';
      for await (const chunk of response.body) {
        text += chunk.toString();
        if (text.includes('"text_delta"')) markOpened();
      }
      if (response.statusCode !== 200) return `HTTP ${response.statusCode}: ${text.slice(0, 200)}`;
      if (text.includes('event: error')) return `in-band error: ${text.slice(text.indexOf('event: error'), 300)}`;
      return text.includes('event: message_stop') ? undefined : 'stream without message_stop';
    } catch (error) {
      return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    } finally {
      markOpened();
    }
  })();
  return { opened, done };
}

/** Opens `streams` streams at once through the target and measures its RSS while they are open. */
export async function runOpenStreams(target: Target, options: OpenStreamsOptions): Promise<OpenStreamsOutcome> {
  const sampler = new RssSampler(target.pid);
  const idleBytes = sampler.sample();
  const agent = new Agent({ connections: null, pipelining: 1, keepAliveTimeout: 30_000 });
  const startedAt = performance.now();
  const streams = Array.from({ length: options.streams }, () => openStream(agent, target, options.body));
  let timer: NodeJS.Timeout | undefined;
  const allOpened = await Promise.race([
    Promise.all(streams.map((stream) => stream.opened)).then(() => true),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), options.openTimeoutMs))),
  ]);
  clearTimeout(timer);
  const openedAfterMs = performance.now() - startedAt;
  sampler.start(250);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const openBytes = sampler.stop();
  const problems = (await Promise.all(streams.map((stream) => stream.done))).filter((problem) => problem !== undefined);
  await agent.close();
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const afterBytes = sampler.sample();
  const errors = problems.length + (allOpened ? 0 : 1);
  const date = new Date().toISOString();
  const markdown = [
    `Run on ${date}: ${options.streams} streams opened at once through the ${target.name}; the upstream sends one text delta a second. RSS of the target's processes from /proc.`,
    '',
    `- every stream had its first delta after ${fixed(openedAfterMs / 1000, 1)} s${allOpened ? '' : ` (NOT all within ${options.openTimeoutMs / 1000} s)`}`,
    `- RSS idle ${megabytes(idleBytes)} MB, with every stream open (highest over 3 s) ${megabytes(openBytes)} MB, after they ended ${megabytes(afterBytes)} MB`,
    `- streams that failed or ended without message_stop: ${problems.length}${problems[0] ? ` (first: ${problems[0]})` : ''}`,
  ].join('\n');
  return { figures: { date, streams: options.streams, rssBytes: openBytes, errors }, markdown };
}
