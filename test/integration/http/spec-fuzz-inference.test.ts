/**
 * The operations an inference key calls (`/messages`, `/messages/count_tokens`, `/models`), sent the mistakes
 * spec-fuzz-cases.ts derives from their schemas: each answers the 4xx the mistake calls for in Anthropic's
 * error shape (`MessagesErrorBody`), naming the field, and nothing reaches the upstream.
 */
import { describe, expect, it } from 'vitest';
import { generateFuzzCases, keyKindOf } from '#test/integration/http/spec-fuzz-cases.ts';
import { sendMistake, useFuzzSetup } from '#test/integration/http/spec-fuzz-support.ts';

const setup = useFuzzSetup();
const cases = generateFuzzCases().filter((mistake) => keyKindOf(mistake.method, mistake.template) === 'inference');

describe('inference operations, mistakes from the spec', () => {
  it.each(cases)('$operation: $mistake', async (mistake) => {
    const sentBefore = setup.upstream.requests.length;
    await sendMistake(setup, mistake);
    expect(setup.upstream.requests.length, 'a mistake reached the upstream').toBe(sentBefore);
  });
});
