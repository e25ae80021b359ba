/**
 * Turns finished requests into records, metrics and broadcasts, off the request path: outcomes are
 * collected as they come and handled together on the next turn of the event loop, so a request only pays
 * for pushing one object onto an array.
 */
import type { Logger } from '#src/logger.ts';
import { buildGenerationRecord } from '#src/observability/build-generation-record.ts';
import type { GenerationOutcome } from '#src/observability/generation-outcome.ts';
import type { ObservabilityDirectory } from '#src/observability/observability-directory.ts';
import type { RecordQueue } from '#src/observability/record-queue.ts';
import type { GatewayMetrics } from '#src/observability/gateway-metrics.ts';
import type { Broadcaster } from '#src/observability/broadcast/broadcast-types.ts';

/** What the pipeline feeds. */
export interface PipelineDeps {
  directory: ObservabilityDirectory;
  /** Undefined when records are turned off. */
  queue: RecordQueue | undefined;
  metrics: GatewayMetrics;
  broadcaster(): Broadcaster | undefined;
  logger: Logger;
}

/** The pipeline; `accept` is the observer's sink. */
export class GenerationPipeline {
  private pending: GenerationOutcome[] = [];
  private scheduled = false;
  private readonly deps: PipelineDeps;

  constructor(deps: PipelineDeps) {
    this.deps = deps;
  }

  /** Takes one outcome; returns at once. */
  readonly accept = (outcome: GenerationOutcome): void => {
    this.pending.push(outcome);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.drain);
  };

  /** Handles what is pending now (also called at shutdown). */
  readonly drain = (): void => {
    this.scheduled = false;
    const outcomes = this.pending;
    this.pending = [];
    const broadcaster = this.deps.broadcaster();
    for (const outcome of outcomes) {
      try {
        const policy = this.deps.directory.policyFor(outcome.workspaceId);
        const record = buildGenerationRecord(outcome, policy.content);
        // The record and the broadcast first: a metric that refuses an observation must not lose them.
        this.deps.queue?.add(record);
        if (broadcaster && policy.destinations.length > 0) broadcaster.offer({ record, outcome }, policy.destinations);
        this.deps.metrics.observe(record, outcome);
      } catch (error) {
        this.deps.logger.error('a generation could not be recorded', { generation_id: outcome.id, error });
      }
    }
  };
}
