/**
 * The `moderation` plugin with OpenAI's endpoint on long inputs and long sessions, over HTTP. The fake endpoint
 * refuses, as a 400 in OpenAI's error shape, an input longer than 10,000 characters or a call of more than 32
 * inputs, and flags any input holding a marker word. A Claude Code-sized system prompt and a whole file in a
 * tool result are screened in pieces it accepts (several calls when there are many), not answered 503; an
 * agent's next step has only its new turn screened, the history it repeats having passed already.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, type FakeUpstream, type RecordedRequest } from '#test/helpers/fake-upstreams/index.ts';
import { openAiErrorObject } from '#test/helpers/fake-upstreams/openai-error.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { WITH_METADATA, metadataOf, postMessage } from '#test/integration/routing/routing-support.ts';
import { inputsOf, longText, MARKER, markerResults, readCall, readingBody as body, readResult, startOpenAiModerationGateway } from './moderation-support.ts';

const INPUT_CHARACTERS = 10_000;
const INPUTS_PER_CALL = 32;
let moderations: FakeUpstream;
let model: FakeUpstream;
let gateway: TestGateway;

/** OpenAI's endpoint, with its limits: a 400 for an input or a list too long, else one result per input. */
function moderate(request: RecordedRequest) {
  const inputs = inputsOf(request);
  if (inputs.length > INPUTS_PER_CALL) return { status: 400, body: { error: openAiErrorObject(400, `Too many inputs: ${inputs.length} > ${INPUTS_PER_CALL}.`) } };
  if (inputs.some((text) => text.length > INPUT_CHARACTERS)) return { status: 400, body: { error: openAiErrorObject(400, 'Input is too long for the moderation model.') } };
  return { status: 200, body: { id: 'modr-limits', model: 'omni-moderation-latest', results: markerResults(inputs) } };
}

beforeAll(async () => {
  ({ moderations, model, gateway } = await startOpenAiModerationGateway(moderate));
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([moderations?.close(), model?.close()]);
});
beforeEach(() => {
  moderations.clear();
  model.clear();
});


const allInputs = () => moderations.requests.flatMap(inputsOf);

describe('long inputs', () => {
  it('screens a 20,000-token system prompt and a whole file in a tool result in pieces the endpoint accepts, and serves them', async () => {
    model.enqueue(reply.fixture('anthropic-text'));
    const system = longText(80_000);
    const file = longText(50_000);
    const call = await postMessage(gateway, body(system, [{ role: 'user', content: 'Explain this file.' }, readCall('toolu_01'), readResult('toolu_01', file)]), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.stop_reason).toBe('end_turn');
    expect(moderations.requests).toHaveLength(1);
    const inputs = allInputs();
    expect(inputs.every((text) => text.length <= INPUT_CHARACTERS)).toBe(true);
    // Nothing is left out: the pieces are the texts, in order.
    expect(inputs.join('')).toBe(`${system}Explain this file.${file}`);
    expect(metadataOf(call) as unknown).toMatchObject({ plugins: [{ id: 'moderation', status: 'passed' }] });
    expect(model.requests).toHaveLength(1);
  });

  it('finds a marker at the end of a long tool result', async () => {
    const file = `${longText(50_000)}\n${MARKER}`;
    const call = await postMessage(gateway, body(longText(80_000), [{ role: 'user', content: 'Explain this file.' }, readCall('toolu_01'), readResult('toolu_01', file)]));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body).toMatchObject({ content: [], stop_reason: 'refusal', stop_details: { category: 'violence' } });
    expect(model.requests).toHaveLength(0);
  });

  it('sends more pieces than one call takes in several calls of at most 32 inputs', async () => {
    model.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, body(longText(300_000), [{ role: 'user', content: `Hello ${randomUUID()}` }]));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const sizes = moderations.requests.map((request) => inputsOf(request).length);
    expect(sizes.length).toBe(2);
    expect(Math.max(...sizes)).toBe(INPUTS_PER_CALL);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeGreaterThan(INPUTS_PER_CALL);
    expect(model.requests).toHaveLength(1);
  });
});

describe('an agent\'s loop', () => {
  it('has only what is new screened on each step: the history it repeats passed already', async () => {
    model.enqueue(reply.fixture('anthropic-text'), reply.fixture('anthropic-text'), reply.fixture('anthropic-text'));
    const system = longText(60_000);
    const prompt = { role: 'user', content: `Fix the bug in the parser (${randomUUID()}).` };
    const first = await postMessage(gateway, body(system, [prompt]));
    const firstInputs = allInputs();
    moderations.clear();

    const result = longText(5_000);
    const step = [prompt, readCall('toolu_01'), readResult('toolu_01', result)];
    const second = await postMessage(gateway, body(system, step));
    const secondInputs = allInputs();
    moderations.clear();

    const third = await postMessage(gateway, body(system, step), WITH_METADATA);

    for (const call of [first, second, third]) expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(firstInputs.length).toBeGreaterThan(1);
    expect(secondInputs).toEqual([result]);
    expect(moderations.requests).toHaveLength(0);
    expect(metadataOf(third) as unknown).toMatchObject({ plugins: [{ id: 'moderation', status: 'passed' }] });
    expect(model.requests).toHaveLength(3);
  });

  it('screens a flagged text again each time it comes back', async () => {
    const messages = [{ role: 'user', content: `Here is how: ${MARKER} (${randomUUID()}).` }];
    const calls = [await postMessage(gateway, body('Be brief.', messages)), await postMessage(gateway, body('Be brief.', messages))];

    for (const call of calls) expect(call.body).toMatchObject({ stop_reason: 'refusal' });
    expect(allInputs().filter((text) => text.includes(MARKER))).toHaveLength(2);
    expect(model.requests).toHaveLength(0);
  });
});
