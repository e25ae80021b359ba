/**
 * The sequential streaming probe: one connection, one streaming request at a time, timing each answer's
 * milestones from the moment the request is sent: the response headers, the first body byte, the first
 * `text_delta` and the end. A stage that waits (a timer, a flush, buffering) shows here as milliseconds even
 * on a busy machine, where throughput figures blur. Several targets are probed together, one request to each
 * in turn (each on its own connection), so the floor's figures and the gateway's come from the same seconds:
 * on a shared VM the machine's speed moves between one target's window and the next.
 */
import { Agent, request, type IncomingMessage } from 'node:http';
import { quantile } from './load-generator.ts';

/** Milestones of one streamed answer, in milliseconds after the request was sent. */
interface Milestones {
  headers: number;
  firstByte: number;
  firstDelta: number;
  end: number;
}

/** Median (and p90) of each milestone over the probe's requests. */
export interface ProbeResult {
  requests: number;
  failures: number;
  p50: Milestones;
  p90: Milestones;
}

/** Where and what the probe sends to one target. */
export interface ProbeTarget {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** How long the probe warms up and then measures, per target. */
export interface ProbeTiming {
  warmupMs: number;
  durationMs: number;
}

function once(agent: Agent, options: ProbeTarget): Promise<Milestones> {
  const url = new URL(options.path, options.origin);
  return new Promise<Milestones>((resolve, reject) => {
    const sentAt = performance.now();
    const times: Partial<Milestones> = {};
    let seen = '';
    const req = request(url, { method: 'POST', agent, headers: { ...options.headers, 'content-length': Buffer.byteLength(options.body) } }, (res: IncomingMessage) => {
      times.headers = performance.now() - sentAt;
      if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const now = performance.now() - sentAt;
        times.firstByte ??= now;
        if (times.firstDelta === undefined) {
          // Only the unscanned tail matters; keep a few bytes in case the marker straddles two chunks.
          seen = seen.slice(-16) + chunk;
          if (seen.includes('"text_delta"')) times.firstDelta = now;
        }
      });
      res.on('end', () => {
        times.end = performance.now() - sentAt;
        if (times.firstDelta === undefined || times.firstByte === undefined) reject(new Error('the stream had no text delta'));
        else resolve(times as Milestones);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

function summarize(samples: Milestones[], q: number): Milestones {
  const pick = (name: keyof Milestones): number => quantile(Float64Array.from(samples, (sample) => sample[name]).sort(), q);
  return { headers: pick('headers'), firstByte: pick('firstByte'), firstDelta: pick('firstDelta'), end: pick('end') };
}

/**
 * Probes every target: after a warm-up of each, one request to each target in turn (the first of a turn
 * rotating), for `durationMs` per target in all. Results in the order of `targets`.
 */
export async function runStreamProbes(targets: readonly ProbeTarget[], timing: ProbeTiming): Promise<ProbeResult[]> {
  const agents = targets.map(() => new Agent({ keepAlive: true, maxSockets: 1 }));
  const samples: Milestones[][] = targets.map(() => []);
  const failures = targets.map(() => 0);
  try {
    for (const [index, target] of targets.entries()) {
      const warmupEnds = performance.now() + timing.warmupMs;
      while (performance.now() < warmupEnds) await once(agents[index]!, target).catch(() => undefined);
    }
    const ends = performance.now() + timing.durationMs * targets.length;
    for (let turn = 0; performance.now() < ends; turn += 1) {
      for (let step = 0; step < targets.length; step += 1) {
        const index = (turn + step) % targets.length;
        try {
          samples[index]!.push(await once(agents[index]!, targets[index]!));
        } catch {
          failures[index]! += 1;
        }
      }
    }
  } finally {
    for (const agent of agents) agent.destroy();
  }
  return samples.map((list, index) => ({ requests: list.length, failures: failures[index]!, p50: summarize(list, 0.5), p90: summarize(list, 0.9) }));
}
