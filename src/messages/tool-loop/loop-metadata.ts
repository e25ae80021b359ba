/**
 * `gateway_metadata` of a tool loop: the routing metadata over the attempts of every step (the last step's
 * attempt is the one that answered), each attempt marked with its step, and the `steps` list.
 */
import type { GatewayMetadata, ToolLoopStep } from '#src/api-types.ts';
import { buildGatewayMetadata } from '#src/messages/gateway-metadata.ts';
import { isByok } from '#src/routing/attempt.ts';
import type { RequestPlan } from '#src/routing/plan-request.ts';
import { summedStepUsage, type LoopTally, type StepRecord } from './loop-tally.ts';

/** One step as `gateway_metadata.steps` lists it: its usage and cost are its refused attempts' too. */
export function describeStep(step: StepRecord): ToolLoopStep {
  const usage = step.refusals === undefined ? step.usage : summedStepUsage([step]);
  return {
    step: step.step,
    model: step.attempt.model,
    provider: step.attempt.provider.displayName,
    is_byok: isByok(step.attempt),
    stop_reason: step.stopReason,
    tools_disabled: step.toolsDisabled,
    usage: {
      input_tokens: usage.input_tokens,
      output_tokens: usage.output_tokens,
      cache_creation_input_tokens: usage.cache_creation_input_tokens,
      cache_read_input_tokens: usage.cache_read_input_tokens,
    },
    cost: step.cost,
    tools_called: step.toolsCalled,
    ...(step.stoppedBy ? { stopped_by: { ...step.stoppedBy } } : {}),
  };
}

/** The metadata of a finished loop (at least one step). */
export function buildLoopMetadata(plan: RequestPlan, tally: LoopTally, startedAt: number): GatewayMetadata {
  const last = tally.steps.at(-1) as StepRecord;
  const records = tally.steps.flatMap((step) => step.records);
  const metadata = buildGatewayMetadata({ plan, served: last.attempt, records, startedAt });
  let position = 0;
  for (const step of tally.steps) {
    for (let index = 0; index < step.records.length; index += 1) {
      const attempt = metadata.attempts[position++];
      if (attempt) attempt.step = step.step;
    }
  }
  const steps = tally.steps.length;
  metadata.summary = `${steps} step${steps === 1 ? '' : 's'}, ${tally.toolCalls} gateway tool call${tally.toolCalls === 1 ? '' : 's'}; ${metadata.summary}`;
  metadata.steps = tally.steps.map(describeStep);
  return metadata;
}
