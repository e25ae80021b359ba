/**
 * The sequential streaming probe: one connection, one streaming request at a time, timing each answer's
 * milestones from the moment the request is sent: the response headers, the first body byte, the first
 * `text_delta` and the end. A stage that waits (a timer, a flush, buffering) shows here as milliseconds even
 * on a busy machine, where throughput figures blur.
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

/** Where and what the probe sends. */
export interface ProbeOptions {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  warmupMs: number;
  durationMs: number;
}

function once(agent: Agent, options: ProbeOptions): Promise<Milestones> {
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

/** Runs the probe: requests back to back on one kept-alive connection, a warm-up first. */
export async function runStreamProbe(options: ProbeOptions): Promise<ProbeResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples: Milestones[] = [];
  let failures = 0;
  try {
    const warmupEnds = performance.now() + options.warmupMs;
    while (performance.now() < warmupEnds) await once(agent, options).catch(() => undefined);
    const ends = performance.now() + options.durationMs;
    while (performance.now() < ends) {
      try {
        samples.push(await once(agent, options));
      } catch {
        failures += 1;
      }
    }
  } finally {
    agent.destroy();
  }
  return { requests: samples.length, failures, p50: summarize(samples, 0.5), p90: summarize(samples, 0.9) };
}
