/**
 * A JSON answer's headers come from an Anthropic-format upstream only once the whole answer is written, so
 * the upstream headers timeout (`SWITCHBOARD_UPSTREAM_HEADERS_TIMEOUT_MS`, here 1 s; undici checks it
 * about every half second, hence the wide margins) is only the floor of
 * a JSON call's wait: it grows with `max_tokens` as the Anthropic SDKs allow (an hour per 128,000 tokens).
 * A stream, whose first bytes come at once, keeps the configured timeout.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, messageBody, modelYaml, postMessage, resetFakes } from './routing-support.ts';

let alpha: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  alpha = await startFakeAnthropic();
  const catalog = catalogYaml([anthropicProviderYaml('alpha', alpha)], [modelYaml('test/slow-writer', [{ provider: 'alpha', model: 'up-slow-writer', price: [1, 1] }])]);
  gateway = await startTestGateway({ catalogYaml: catalog, env: { SWITCHBOARD_UPSTREAM_HEADERS_TIMEOUT_MS: '1000' } });
});
afterAll(async () => {
  await gateway?.close();
  await alpha?.close();
});
beforeEach(() => resetFakes(alpha));

describe('the wait for an upstream answer', () => {
  it('lets a JSON answer take as long as its max_tokens allows (128 tokens: 3.6 s), beyond the headers timeout', async () => {
    alpha.enqueue(reply.fixture('anthropic-text', { delayMs: 3_000 }));
    const call = await postMessage(gateway, messageBody('test/slow-writer', { max_tokens: 128 }));
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.type).toBe('message');
  });

  it('still times out a JSON answer slower than that (32 tokens: 0.9 s, so the 1 s floor)', async () => {
    alpha.enqueue(reply.fixture('anthropic-text', { delayMs: 3_000 }));
    const call = await postMessage(gateway, messageBody('test/slow-writer', { max_tokens: 32 }));
    expect(call.status).toBeGreaterThanOrEqual(500);
    expect(JSON.stringify(call.body)).toMatch(/tim(e|ed) ?out/i);
  });
});
