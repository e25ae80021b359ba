/**
 * `max_cost` reads what the request has been charged so far, as the answer's `usage.cost` gives it: the
 * `moderation` plugin's screening by a catalog model (charged to the key before the first step) and the steps.
 * Here the first step alone stays under the limit and the screening takes it past: the loop stops after that
 * step, its final turn with tools disabled. Before, only the steps counted, so the loop went on offering tools
 * on a request whose `usage.cost` was already over the client's limit.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml, postMessage } from '#test/integration/routing/routing-support.ts';
import { bodyOf } from './loop-support.ts';
import { priceOf } from '#test/helpers/token-price.ts';

// USD per million tokens, input and output.
const CLAUDE_PRICES = [3, 15] as const;
const GUARD_PRICES = [50, 100] as const;
// The first step: 1000 x 3 + 100 x 15 = 4500 micro-dollars. The screening: 90 x 50 + 12 x 100 = 5700.
const TOOL_STEP = { text: 'Checking.', calls: [{ name: 'datetime', input: { timezone: 'UTC' } }], usage: { input: 1000, output: 100 } };
const ANSWER = { text: 'It is noon.', usage: { input: 1200, output: 10 } };
const STEP_COST = priceOf(1000, 100, CLAUDE_PRICES);
const SCREENING_COST = priceOf(90, 12, GUARD_PRICES);
const ANSWER_COST = priceOf(1200, 10, CLAUDE_PRICES);
// Past the first step's cost, short of the step and the screening together.
const LIMIT = { type: 'max_cost', max_cost_in_dollars: 0.006 };

let model: FakeUpstream;
let guard: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [model, guard] = await Promise.all([startFakeAnthropic(), startFakeAnthropic()]);
  const catalog = [
    catalogYaml(
      [anthropicProviderYaml('alpha', model), anthropicProviderYaml('beta', guard)],
      [
        modelYaml('test/claude', [{ provider: 'alpha', model: 'claude-up', price: [...CLAUDE_PRICES] }]),
        modelYaml('test/guard', [{ provider: 'beta', model: 'claude-guard', price: [...GUARD_PRICES] }]),
      ],
    ),
    'plugins:',
    '  moderation: { engine: model, model: test/guard }',
    '',
  ].join('\n');
  gateway = await startTestGateway({ catalogYaml: catalog });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await Promise.all([model?.close(), guard?.close()]);
});
beforeEach(() => {
  model.clear();
  guard.clear();
});

// A new text each time: a text the moderation model passed is not screened again for the account.
function body(plugins: unknown[]): Record<string, unknown> {
  return {
    model: 'test/claude',
    max_tokens: 256,
    messages: [{ role: 'user', content: `What time is it? (${randomUUID()})` }],
    tools: [{ type: 'gateway:datetime' }],
    stop_server_tools_when: [LIMIT],
    plugins,
  };
}

describe('max_cost with the moderation plugin screening by a catalog model', () => {
  it('counts the screening: the loop stops after the first step, whose cost alone is under the limit', async () => {
    guard.enqueue(anthropicStep({ text: JSON.stringify({ flagged: false, category: null, explanation: 'Fine.' }), usage: { input: 90, output: 12 } }));
    model.enqueue(anthropicStep(TOOL_STEP), anthropicStep(ANSWER));
    const call = await postMessage(gateway, body([{ id: 'moderation' }]));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(guard.requests).toHaveLength(1);
    expect(model.requests).toHaveLength(2);
    // The second turn is the final one: the same tools, none of them offered.
    expect(bodyOf(model.requests[0]).tool_choice).toBeUndefined();
    expect(bodyOf(model.requests[1]).tool_choice).toEqual({ type: 'none' });
    expect((call.body.usage as { cost: number }).cost).toBeCloseTo(SCREENING_COST + STEP_COST + ANSWER_COST, 12);
  });

  it('without the screening the same limit lets the loop go on offering tools', async () => {
    model.enqueue(anthropicStep(TOOL_STEP), anthropicStep(ANSWER));
    const call = await postMessage(gateway, body([]));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(guard.requests).toHaveLength(0);
    expect(bodyOf(model.requests[1]).tool_choice).toBeUndefined();
    expect((call.body.usage as { cost: number }).cost).toBeCloseTo(STEP_COST + ANSWER_COST, 12);
  });
});
