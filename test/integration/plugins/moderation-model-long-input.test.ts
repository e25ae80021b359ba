/**
 * The `moderation` plugin with a catalog model (`engine: model`) on long inputs and long sessions, over HTTP.
 * The fake moderation model (Anthropic's wire format) has a 3,000-token context: it refuses, as Anthropic
 * does, a prompt longer than that (here, more than 6,000 characters of input), flags an input holding a marker
 * word, and passes the rest after 250 ms. A long system prompt and a whole file in a tool result are screened
 * in calls that fit its context (at most four under way at once), not answered 503; an agent's next step has
 * only its new turn screened, the history it repeats having passed already; a flagged piece is screened again.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicMessagesFormat, anthropicStep, reply, startFakeAnthropic, startFakeUpstream, type FakeUpstream, type RecordedRequest } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { WITH_METADATA, anthropicProviderYaml, metadataOf, modelYaml, postMessage } from '#test/integration/routing/routing-support.ts';
import { longText, MARKER, moderationCatalogYaml, readCall, readingBody as body, readResult } from './moderation-support.ts';

const CONTEXT_TOKENS = 3_000;
/** The input the fake model reads before it answers that the prompt is too long. */
const INPUT_CHARACTERS = 6_000;
const ANSWER_MS = 250;
const SEPARATOR = '\n\n---\n\n';
const format = anthropicMessagesFormat();
let guard: FakeUpstream;
let model: FakeUpstream;
let gateway: TestGateway;
/** When each screening call arrived, in order. */
let arrivals: number[] = [];

/** The texts one screening call carries, as the gateway wrote them between <input> and </input>. */
function piecesOf(request: RecordedRequest): string[] {
  const content = String((request.body as { messages: { content: unknown }[] }).messages[0]?.content);
  return content.replace(/^<input>\n/, '').replace(/\n<\/input>$/, '').split(SEPARATOR);
}

const verdict = (flagged: boolean) => JSON.stringify({ flagged, category: flagged ? 'violence' : null, explanation: flagged ? 'A marker.' : 'Fine.' });

beforeAll(async () => {
  const screen = (request: RecordedRequest) => {
    if (request.operation !== 'messages') return undefined;
    arrivals.push(performance.now());
    const input = piecesOf(request).join(SEPARATOR);
    if (input.length > INPUT_CHARACTERS) return { status: 400, body: format.errorFor(400, `prompt is too long: ${Math.ceil(input.length / 2)} tokens > ${CONTEXT_TOKENS} maximum`).body };
    if (input.includes(MARKER)) return { status: 200, body: { id: 'msg_flag', type: 'message', role: 'assistant', model: 'claude-guard', content: [{ type: 'text', text: verdict(true) }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 90, output_tokens: 12 } } };
    // Passed after a while, from the script: calls under way overlap.
    return undefined;
  };
  [guard, model] = await Promise.all([
    startFakeUpstream({ ...format, answerDirectly: screen }, { whenEmpty: anthropicStep({ text: verdict(false), usage: { input: 90, output: 12 } }, { delayMs: ANSWER_MS }) }),
    startFakeAnthropic(),
  ]);
  const guardModel = modelYaml('test/guard', [{ provider: 'beta', model: 'claude-guard', price: [1, 1] }]).replace('context_length: 200000', `context_length: ${CONTEXT_TOKENS}`);
  gateway = await startTestGateway({
    catalogYaml: moderationCatalogYaml(model, '{ engine: model, model: test/guard, timeout_ms: 20000 }', { providers: [anthropicProviderYaml('beta', guard)], models: [guardModel] }),
  });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([guard?.close(), model?.close()]);
});
beforeEach(() => {
  guard.clear();
  model.clear();
  arrivals = [];
});

const screenedPieces = () => guard.requests.flatMap(piecesOf);

/** The most calls that arrived within a window shorter than one answer: all were under way together. */
function mostUnderWay(): number {
  return Math.max(...arrivals.map((start) => arrivals.filter((at) => at >= start && at < start + ANSWER_MS * 0.6).length));
}

describe('long inputs', () => {
  it('screens a long system prompt and a whole file in calls that fit the model\'s context, four at most under way, and charges them all', async () => {
    model.enqueue(reply.fixture('anthropic-text'));
    const system = longText(20_000);
    const file = longText(12_000);
    const call = await postMessage(gateway, body(system, [{ role: 'user', content: 'Explain this file.' }, readCall('toolu_01'), readResult('toolu_01', file)]), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.stop_reason).toBe('end_turn');
    const calls = guard.requests.length;
    expect(calls).toBeGreaterThan(4);
    for (const request of guard.requests) expect(piecesOf(request).join(SEPARATOR).length).toBeLessThanOrEqual(INPUT_CHARACTERS);
    // Nothing is left out: the pieces, in the order of the text (calls under way together arrive in any order), are the texts.
    const whole = `${system}Explain this file.${file}`;
    expect(screenedPieces().sort((one, other) => whole.indexOf(one) - whole.indexOf(other)).join('')).toBe(whole);
    expect(mostUnderWay()).toBeLessThanOrEqual(4);
    // Every call is charged: 90 + 12 tokens each at $1 per million.
    expect(metadataOf(call) as unknown).toMatchObject({ plugins: [{ id: 'moderation', status: 'passed', screening: { model: 'test/guard', usage: { input_tokens: 90 * calls, output_tokens: 12 * calls } } }] });
    expect((call.body.usage as { cost: number }).cost).toBeGreaterThanOrEqual((102 * calls) / 1_000_000);
    expect(model.requests).toHaveLength(1);
  });

  it('finds a marker at the end of a long tool result', async () => {
    const file = `${longText(12_000)}\n${MARKER}`;
    const call = await postMessage(gateway, body(longText(8_000), [{ role: 'user', content: 'Explain this file.' }, readCall('toolu_01'), readResult('toolu_01', file)]));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body).toMatchObject({ content: [], stop_reason: 'refusal', stop_details: { category: 'violence' } });
    expect(model.requests).toHaveLength(0);
  });
});

describe('an agent\'s loop', () => {
  it('has only what is new screened on each step: the history it repeats passed already', async () => {
    model.enqueue(reply.fixture('anthropic-text'), reply.fixture('anthropic-text'), reply.fixture('anthropic-text'));
    const system = longText(10_000);
    const prompt = { role: 'user', content: `Fix the bug in the parser (${randomUUID()}).` };
    const first = await postMessage(gateway, body(system, [prompt]));
    const firstCalls = guard.requests.length;
    guard.clear();

    const result = longText(2_000);
    const step = [prompt, readCall('toolu_01'), readResult('toolu_01', result)];
    const second = await postMessage(gateway, body(system, step));
    const secondPieces = screenedPieces();
    guard.clear();

    const third = await postMessage(gateway, body(system, step), WITH_METADATA);

    for (const call of [first, second, third]) expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(firstCalls).toBeGreaterThan(1);
    expect(secondPieces).toEqual([result]);
    expect(guard.requests).toHaveLength(0);
    // Nothing screened, nothing charged.
    expect(metadataOf(third) as unknown).toEqual(expect.objectContaining({ plugins: [{ id: 'moderation', status: 'passed' }] }));
    expect(model.requests).toHaveLength(3);
  });

  it('screens a flagged text again each time it comes back', async () => {
    const messages = [{ role: 'user', content: `Here is how: ${MARKER} (${randomUUID()}).` }];
    const calls = [await postMessage(gateway, body('Be brief.', messages)), await postMessage(gateway, body('Be brief.', messages))];

    for (const call of calls) expect(call.body).toMatchObject({ stop_reason: 'refusal' });
    expect(screenedPieces().filter((text) => text.includes(MARKER))).toHaveLength(2);
    expect(model.requests).toHaveLength(0);
  });
});

