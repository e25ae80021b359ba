/**
 * Gemini answers its per-minute limits with a 429 `RESOURCE_EXHAUSTED` worded as OpenAI words an empty
 * account ("You exceeded your current quota"), and names its wait in `RetryInfo.retryDelay`, not in a
 * `retry-after` header. Through the gateway the client must hear a rate limit with that wait, which the
 * Anthropic SDK honours, not a 502 for a provider key out of credit. Replays Gemini's recorded 429 body.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { reply, startFakeGemini } from '#test/helpers/fake-upstreams/index.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';

const MODEL = 'e2e/gemini';
const e2e = useE2eTarget({
  startUpstream: startFakeGemini,
  providerYaml: (fake) => `  google: { base_url: "${fake.baseURL}", api_key: "AIzaSy-e2e-rate-limit-0001" }`,
  model: { slug: MODEL, provider: 'google', upstreamModel: 'gemini-2.5-flash', pricing: '{ input: 1, output: 2 }' },
});

const REQUEST = { model: MODEL, max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hello' }] };

describe("Gemini's 429 RESOURCE_EXHAUSTED", () => {
  it('answers 429 rate_limit_error with the retryDelay Gemini named as retry-after', async () => {
    e2e.upstream.clear();
    e2e.upstream.enqueue(reply.error(429, { fixture: 'google-429-retry-info' }));
    const error = await e2e.client.messages.create(REQUEST).then(
      () => undefined,
      (caught: unknown) => caught as InstanceType<typeof Anthropic.APIError>,
    );

    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(error?.type).toBe('rate_limit_error');
    // "34.4s", in whole seconds.
    expect(error?.headers?.get('retry-after')).toBe('35');
    expect(error?.apiMessage).toMatch(/rate limited \(429\)/);
  });
});
