/**
 * Every management operation of the spec (and `GET /health`, which takes no key), sent the mistakes
 * spec-fuzz-cases.ts derives from its schemas, with a management key: each answers the 4xx the mistake calls
 * for, in `ErrorBody`, naming the field, and leaves credentials, keys, destinations and workspace settings as
 * they were.
 */
import { describe, it } from 'vitest';
import { generateFuzzCases, keyKindOf } from '#test/integration/http/spec-fuzz-cases.ts';
import { sendMistake, useFuzzSetup } from '#test/integration/http/spec-fuzz-support.ts';

const setup = useFuzzSetup();
const cases = generateFuzzCases().filter((mistake) => keyKindOf(mistake.method, mistake.template) !== 'inference');

describe('management operations, mistakes from the spec', () => {
  it.each(cases)('$operation: $mistake', async (mistake) => {
    await sendMistake(setup, mistake);
  });
});
