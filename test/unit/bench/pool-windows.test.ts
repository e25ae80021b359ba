import { describe, expect, it } from 'vitest';
import { poolWindows } from '../../../bench/measure.ts';
import type { ScenarioResult } from '../../../bench/results-table.ts';

function window(requests: number, elapsedMs: number, p50Ms: number, cpuMicrosPerRequest: number, failures = 0): ScenarioResult {
  return {
    target: 'gateway',
    stream: false,
    connections: 16,
    load: { requests, elapsedMs, requestsPerSecond: (requests * 1000) / elapsedMs, p50Ms, p99Ms: p50Ms * 4, non2xx: 0, failures, firstProblem: failures ? 'broken' : undefined },
    cpuMicrosPerRequest,
    upstreamCpuMicrosPerRequest: 10,
    clientCpuMicrosPerRequest: 20,
  };
}

describe('poolWindows', () => {
  it('sums requests, time and CPU over the windows and takes the median window latency', () => {
    const pooled = poolWindows([window(1000, 3000, 1.0, 100), window(3000, 3000, 3.0, 200), window(2000, 3000, 2.0, 300, 2)]);
    expect(pooled.load.requests).toBe(6000);
    expect(pooled.load.elapsedMs).toBe(9000);
    expect(pooled.load.requestsPerSecond).toBeCloseTo(666.667, 2);
    // All the CPU over all the requests: (1000×100 + 3000×200 + 2000×300) / 6000.
    expect(pooled.cpuMicrosPerRequest).toBeCloseTo(216.667, 2);
    expect(pooled.upstreamCpuMicrosPerRequest).toBeCloseTo(10, 6);
    expect(pooled.load.p50Ms).toBe(2.0);
    expect(pooled.load.p99Ms).toBe(8.0);
    expect(pooled.load.failures).toBe(2);
    expect(pooled.load.firstProblem).toBe('broken');
  });

  it('averages the two middle windows of an even count and passes one window through', () => {
    expect(poolWindows([window(10, 1000, 1.0, 1), window(10, 1000, 2.0, 1)]).load.p50Ms).toBe(1.5);
    const single = window(5, 1000, 1, 1);
    expect(poolWindows([single])).toBe(single);
    expect(() => poolWindows([])).toThrow('no window');
  });
});
