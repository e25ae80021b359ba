/**
 * The auto-router over HTTP reads the effective effort: a `role: "system"` message's per-message
 * `output_config.effort` (what Claude Code sends on the 5.5 models, after the first user turn) counts as the
 * request's effort, and a later one overrides the top-level `output_config.effort`. The turn below scores 3 of
 * 8 points (a code fence, 3+ reasoning words), which picks the cheaper of two candidates; effort high adds the
 * point that picks the pricier.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { messageBody, metadataOf, postMessage, resetFakes, upstreamModelOf, WITH_METADATA } from './routing-support.ts';
import { startAutoRouterGateway } from './auto-router-support.ts';

let alpha: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  ({ alpha, gateway } = await startAutoRouterGateway());
});

afterAll(async () => {
  await gateway?.close();
  await alpha?.close();
});

beforeEach(() => resetFakes(alpha));

const PLUGIN = { id: 'auto-router', allowed_models: ['test/*'] };
const SIGNALS = ['code', 'reasoning words: prove, algorithm, analyze, complexity, step by step'];

function turn(): { role: 'user'; content: string } {
  return { role: 'user', content: `Prove the algorithm is correct, analyze its complexity step by step (${randomUUID()}):\n\`\`\`\nfor (;;) {}\n\`\`\`` };
}

function reminder(effort?: string): Record<string, unknown> {
  return { role: 'system', content: 'The date is 2026-11-27.', ...(effort === undefined ? {} : { output_config: { effort } }) };
}

describe('switchboard/auto with a per-message effort', () => {
  it.each<[string, Record<string, unknown>, string, string[]]>([
    ['no effort: the cheaper model', { messages: [turn(), reminder()] }, 'test/cheap', SIGNALS],
    ["a system message's effort high (Claude Code on the 5.5 models): the pricier", { messages: [turn(), reminder('high')] }, 'test/pricey', [...SIGNALS, 'effort high']],
    ["top-level high overridden by a later system message's low: the cheaper", { output_config: { effort: 'high' }, messages: [turn(), reminder('low')] }, 'test/cheap', SIGNALS],
  ])('%s', async (_name, fields, model, signals) => {
    const call = await postMessage(gateway, messageBody('switchboard/auto', { plugins: [PLUGIN], ...fields }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.model).toBe(model);
    expect(alpha.requests.map((request) => upstreamModelOf(request))).toEqual([model === 'test/cheap' ? 'up-cheap' : 'up-pricey']);
    const [report] = ((metadataOf(call) as { plugins?: Array<Record<string, unknown>> }).plugins ?? []);
    expect(report).toMatchObject({ id: 'auto-router', model, signals });
  });
});
