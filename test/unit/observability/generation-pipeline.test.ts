/** The pipeline from finished requests to records, broadcasts and metrics: one failing sink does not cost the others. */
import { describe, expect, it } from 'vitest';
import { GenerationPipeline } from '#src/observability/generation-pipeline.ts';
import { GatewayMetrics } from '#src/observability/gateway-metrics.ts';
import { createLogger } from '#src/logger.ts';
import type { GenerationRecord } from '#src/observability/build-generation-record.ts';
import type { ObservabilityDirectory } from '#src/observability/observability-directory.ts';
import type { RecordQueue } from '#src/observability/record-queue.ts';
import type { Broadcaster } from '#src/observability/broadcast/broadcast-types.ts';
import type { ActiveDestination } from '#src/observability/destinations/active-destination.ts';
import { generationOutcome as outcome } from '#test/helpers/generation-outcome.ts';

function pipeline(options: { destinations: ActiveDestination[] }) {
  const added: GenerationRecord[] = [];
  const offered: string[] = [];
  const logged: string[] = [];
  const metrics = new GatewayMetrics({ modelSlug: (name) => name, isKnownProvider: () => true, depths: { records: () => 0, broadcast: () => ({}) } });
  const directory = { policyFor: () => ({ content: { storeContent: false, retentionDays: 30 }, destinations: options.destinations }) } as unknown as ObservabilityDirectory;
  const queue = { add: (record: GenerationRecord) => void added.push(record) } as unknown as RecordQueue;
  const broadcaster = { offer: (item: { record: GenerationRecord }) => void offered.push(item.record.id) } as unknown as Broadcaster;
  const logger = createLogger({ level: 'error', sink: (line) => void logged.push(line) });
  return { run: new GenerationPipeline({ directory, queue, metrics, broadcaster: () => broadcaster, logger }), added, offered, logged, metrics };
}

describe('GenerationPipeline', () => {
  it('queues the record, offers it to the destinations and counts it in the metrics', async () => {
    const { run, added, offered, metrics } = pipeline({ destinations: [{ id: 'd1' } as ActiveDestination] });
    run.accept(outcome());
    run.drain();
    expect(added.map((record) => record.id)).toEqual([outcome().id]);
    expect(offered).toEqual([outcome().id]);
    expect(await metrics.registry.metrics()).toMatch(/switchboard_requests_total\{outcome="success",code="200",model="test\/m",provider="p"\} 1/);
  });

  it('still queues and offers a generation whose metrics observation is refused, and logs the refusal', () => {
    const { run, added, offered, logged } = pipeline({ destinations: [{ id: 'd1' } as ActiveDestination] });
    // A duration no histogram accepts.
    run.accept(outcome({ totalMs: Number.NaN }));
    run.drain();
    expect(added).toHaveLength(1);
    expect(offered).toHaveLength(1);
    expect(logged.join('\n')).toContain('a generation could not be recorded');
  });
});
