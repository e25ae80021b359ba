/**
 * What the circuit breaker does not count, over HTTP: clients that cancel (disconnect) while Alpha is working
 * on their request, JSON or stream, and requests Alpha rejects as the client's mistake (400, 422) or as too
 * large for it (413) say nothing about Alpha's health. More of either than the failure threshold leaves Alpha first in the plan with
 * no `circuit_open`; the same number of 500s (the control) moves it last.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { breakerCatalogYaml, messageBody, metadataOf, postMessage, resetFakes, startBreakerUpstreams, WITH_METADATA } from './routing-support.ts';

const FAILURES = 3;
const MODELS = ['test/cancelled', 'test/rejected-400', 'test/rejected-413', 'test/rejected-422', 'test/failing'];
const BREAKER_ENV = { SWITCHBOARD_CIRCUIT_FAILURES: String(FAILURES), SWITCHBOARD_CIRCUIT_COOLDOWN_MS: '60000', SWITCHBOARD_RECORD_FLUSH_MS: '50' };

describe('circuit breaker: cancellations and client mistakes are not endpoint failures', () => {
  let alpha: FakeUpstream;
  let beta: FakeUpstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    ({ alpha, beta } = await startBreakerUpstreams());
    // One model per test: a circuit is per endpoint (model and provider), so no test sees another's.
    gateway = await startTestGateway({ catalogYaml: breakerCatalogYaml(alpha, beta, MODELS), env: BREAKER_ENV });
  });
  afterAll(async () => {
    await gateway?.close();
    await Promise.all([alpha?.close(), beta?.close()]);
  });
  beforeEach(() => resetFakes(alpha, beta));

  const body = (model: string, extra: Record<string, unknown> = {}) => messageBody(model, { session_id: randomUUID(), ...extra });

  /** Alpha answers next; the request must reach it first, with no circuit named. */
  async function expectAlphaFirst(model: string): Promise<void> {
    alpha.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, body(model), WITH_METADATA);
    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const metadata = metadataOf(call) as ReturnType<typeof metadataOf> & { circuit_open?: unknown };
    expect(metadata.attempts.map((attempt) => `${attempt.provider} ${attempt.status}`)).toEqual(['Alpha Cloud success']);
    expect(metadata.circuit_open).toBeUndefined();
  }

  /** Waits until the gateway has recorded `count` cancelled generations (so each cancellation was settled). */
  async function cancelledRecords(count: number): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const listed = await callApi<{ totals: { requests: number } }>(gateway.baseUrl, 'GET', '/generations?status=cancelled&limit=1', { key: gateway.management_key });
      if (listed.body.totals.requests >= count) return;
      if (Date.now() > deadline) throw new Error(`only ${listed.body.totals.requests} of ${count} cancelled records arrived`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('does not count clients that disconnect while Alpha works on their request, JSON or stream', async () => {
    const cancellations = FAILURES + 2;
    for (let index = 0; index < cancellations; index += 1) {
      const stream = index % 2 === 1;
      alpha.enqueue(reply.fixture('anthropic-text', { delayMs: 10_000 }));
      const seen = alpha.requests.length;
      const controller = new AbortController();
      const pending = fetch(`${gateway.baseUrl}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body('test/cancelled', stream ? { stream: true } : {})),
        signal: controller.signal,
      }).catch((error: unknown) => error);
      const deadline = Date.now() + 5_000;
      while (alpha.requests.length === seen && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(alpha.requests.length).toBe(seen + 1);
      controller.abort();
      expect(await pending).toMatchObject({ name: 'AbortError' });
      await cancelledRecords(index + 1);
    }
    expect(beta.requests).toHaveLength(0);
    await expectAlphaFirst('test/cancelled');
  });

  it.each([400, 422])('does not count requests Alpha rejects with %i as the client’s mistake', async (status) => {
    for (let index = 0; index < FAILURES + 1; index += 1) {
      alpha.enqueue(reply.error(status));
      const call = await postMessage(gateway, body(`test/rejected-${status}`), WITH_METADATA);
      expect(call.status).toBe(400);
      expect(call.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    }
    expect(beta.requests).toHaveLength(0);
    await expectAlphaFirst(`test/rejected-${status}`);
  });

  it('does not count a body Alpha refuses as too large (413): the next endpoint, whose limit may be larger, answers', async () => {
    for (let index = 0; index < FAILURES + 1; index += 1) {
      alpha.enqueue(reply.error(413));
      expect((await postMessage(gateway, body('test/rejected-413'), WITH_METADATA)).status).toBe(200);
    }
    expect(beta.requests).toHaveLength(FAILURES + 1);
    await expectAlphaFirst('test/rejected-413');
  });

  it('opens the circuit on as many server errors (the control)', async () => {
    for (let index = 0; index < FAILURES; index += 1) {
      alpha.enqueue(reply.error(500));
      expect((await postMessage(gateway, body('test/failing'), WITH_METADATA)).status).toBe(200);
    }
    const call = await postMessage(gateway, body('test/failing'), WITH_METADATA);
    const metadata = metadataOf(call) as ReturnType<typeof metadataOf> & { circuit_open?: unknown };
    expect(metadata.attempts.map((attempt) => attempt.provider)).toEqual(['Beta Cloud']);
    expect(metadata.circuit_open).toEqual([{ model: 'test/failing', provider: 'Alpha Cloud', retry_at: expect.any(String) }]);
  });
});
