/**
 * Over HTTP, with a key with a spending limit: a streamed tool loop whose step was refused, then moved on to the
 * next model, is charged the refused call when the client leaves while that next model's answer is still under
 * way (the step never finishes, so it is not charged with the step): on the generation record and the key's
 * spending, at the refused endpoint's prices, beside what the serving call's message_start announced at its
 * own; a refusal its upstream does not bill (before any output, `cyber`) adds nothing. The refusal of a later
 * step and of the first (no step finished) both. `test/main` refuses at $1/$2 per million tokens,
 * `test/backup` answers at $3/$4.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep } from '#test/helpers/fake-upstreams/index.ts';
import { issueLimitedKey } from '#test/integration/limits/limits-support.ts';
import { expectLeftStreamCharged, leaveAfterFallback } from '#test/integration/routing/refusal-leave-support.ts';
import { earlyRefusalStep, fallbackRequest, micro, refusalStep, startRefusalGateway, type RefusalGateway } from '#test/integration/routing/refusal-support.ts';

let setup: RefusalGateway;

beforeAll(async () => {
  setup = await startRefusalGateway({ env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
}, 60_000);

afterAll(async () => {
  await setup?.close();
});

beforeEach(() => setup.clear());

// A finished step on test/main: 30 in, 5 out at $1/$2.
const STEP_1 = micro(30, 1) + micro(5, 2);
// The refused call (output began: billed): 40 in, 1 out at $1/$2.
const REFUSED = micro(40, 1) + micro(1, 2);
// The serving call's message_start: 60 in, 1 out at $3/$4.
const SERVING_STARTED = micro(60, 3) + micro(1, 4);

/** The loop, streamed: its first step asks for the time. */
const loopRequest = () => fallbackRequest({ stream: true, messages: [{ role: 'user', content: 'What time is it in Paris?' }], tools: [{ type: 'gateway:datetime' }] });

const stallingAnswer = () => anthropicStep({ text: 'It is noon in Paris, and a long answer follows.', usage: { input: 60, output: 6 } }, { stallAfterEvents: 4 });
const toolStep = () => anthropicStep({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input: 30, output: 5 } });

type Step = ReturnType<typeof anthropicStep>;
const CASES: { name: string; before: Step[]; refusal: () => Step; steps: number; cost: number; tokens: { input_tokens: number; output_tokens: number } }[] = [
  { name: 'a later step refused (billed)', before: [toolStep()], refusal: () => refusalStep({ input: 40, output: 1 }), steps: 1, cost: STEP_1 + REFUSED + SERVING_STARTED, tokens: { input_tokens: 130, output_tokens: 7 } },
  { name: 'the first step refused (billed)', before: [], refusal: () => refusalStep({ input: 40, output: 1 }), steps: 0, cost: REFUSED + SERVING_STARTED, tokens: { input_tokens: 100, output_tokens: 2 } },
  { name: 'the first step refused before any output (cyber: unbilled)', before: [], refusal: () => earlyRefusalStep('cyber', { input: 40, output: 0 }), steps: 0, cost: SERVING_STARTED, tokens: { input_tokens: 100, output_tokens: 1 } },
];

describe('a streamed loop the client leaves while the model after a refusal answers the step', () => {
  it.each(CASES)('$name: the refused call is charged as billed, on the record and the key', async ({ before, refusal, steps, cost, tokens }) => {
    const issued = await issueLimitedKey(setup.gateway, { limit: 10 });
    setup.refusing.enqueue(...before, refusal());
    setup.serving.enqueue(stallingAnswer());
    const id = await leaveAfterFallback(setup.gateway, issued.key, loopRequest());

    await expectLeftStreamCharged(setup.gateway, issued, id, { refused: 'test/main', serving: 'test/backup', tokens, cost, steps });
  });
});
