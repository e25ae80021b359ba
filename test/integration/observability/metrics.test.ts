/**
 * `GET /metrics` over HTTP, scraped and parsed as Prometheus would: counters and histograms move with
 * traffic (requests by outcome, status, model and provider; tokens and cost; failovers and upstream errors by
 * class; sticky-pin hits; records written), labels stay bounded (no ids, users or unknown models), a
 * management key is needed, and `SWITCHBOARD_METRICS_PORT` serves the same text without one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { scrapeMetrics, parseScrape, type Scrape } from '#test/helpers/prometheus-scrape.ts';
import { ALPHA_FIRST, messageBody, postMessage, streamMessage } from '#test/integration/routing/routing-support.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';

let setup: RecordsGateway;

beforeAll(async () => {
  setup = await startRecordsGateway({ env: { SWITCHBOARD_METRICS_PORT: '0' } });
});
afterAll(async () => {
  await setup?.close();
});

async function scrape(): Promise<Scrape> {
  await setup.gateway.server.flushRecords();
  return scrapeMetrics(setup.gateway.baseUrl, setup.gateway.management_key);
}

describe('GET /metrics', () => {
  it('moves the request, token, cost, failover, upstream-error, sticky and record counters', async () => {
    const before = await scrape();
    const success = { outcome: 'success', code: '200', model: 'test/primary', provider: 'alpha' };

    setup.alpha.enqueue(reply.fixture('anthropic-text'), reply.fixture('anthropic-text'), reply.error(529), reply.fixture('anthropic-text'), reply.fixture('anthropic-text'));
    setup.beta.enqueue(reply.fixture('anthropic-text'));
    expect((await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST))).status).toBe(200);
    expect((await streamMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST))).status).toBe(200);
    // Alpha fails (529), Beta answers: one failover, one upstream error.
    expect((await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST))).status).toBe(200);
    // The same session of the same end user twice (sticky keys are per end user): the second follows the pin.
    expect((await postMessage(setup.gateway, messageBody('test/primary', { session_id: 'sticky-metrics', user: 'secret-user-name' }))).status).toBe(200);
    expect((await postMessage(setup.gateway, messageBody('test/primary', { session_id: 'sticky-metrics', user: 'secret-user-name' }))).status).toBe(200);
    // An unknown model: a 404 whose model label is bounded.
    expect((await postMessage(setup.gateway, messageBody('nobody/unknown-model-12345'))).status).toBe(404);

    const after = await scrape();
    const delta = (name: string, labels?: Record<string, string>) => after.value(name, labels) - before.value(name, labels);

    expect(delta('switchboard_requests_total')).toBe(6);
    expect(delta('switchboard_requests_total', { outcome: 'success', code: '200', model: 'test/primary' })).toBe(5);
    expect(delta('switchboard_requests_total', { ...success })).toBeGreaterThanOrEqual(2);
    expect(delta('switchboard_requests_total', { outcome: 'error', code: '404', model: 'other', provider: 'none' })).toBe(1);
    expect(delta('switchboard_tokens_total', { type: 'input' })).toBe(5 * 12);
    expect(delta('switchboard_tokens_total', { type: 'output' })).toBe(4 * 29 + 30);
    expect(delta('switchboard_cost_usd_total')).toBeCloseTo((5 * 12 + 2 * (4 * 29 + 30)) / 1_000_000, 12);
    expect(delta('switchboard_failovers_total', { reason: 'overloaded' })).toBe(1);
    expect(delta('switchboard_upstream_errors_total', { provider: 'alpha', class: 'overloaded' })).toBe(1);
    expect(delta('switchboard_sticky_pin_hits_total')).toBe(1);
    expect(delta('switchboard_generation_records_written_total')).toBe(6);
    expect(after.histogramCount('switchboard_request_duration_seconds') - before.histogramCount('switchboard_request_duration_seconds')).toBe(6);
    expect(after.histogramCount('switchboard_time_to_first_byte_seconds', { stream: 'true' }) - before.histogramCount('switchboard_time_to_first_byte_seconds', { stream: 'true' })).toBe(1);
    expect(after.value('switchboard_generation_records_queue_depth')).toBe(0);
    expect(after.families.some((family) => family.name === 'process_resident_memory_bytes')).toBe(true);

    // Bounded labels: no generation ids, users, sessions or unknown models anywhere.
    expect(after.text).not.toMatch(/gen_[A-Za-z0-9_-]{24}/);
    expect(after.text).not.toContain('secret-user-name');
    expect(after.text).not.toContain('sticky-metrics');
    expect(after.text).not.toContain('unknown-model-12345');
  });

  it('counts a request naming its model by a bare Anthropic id under the catalog slug, failed or served', async () => {
    const before = await scrape();
    // `up-primary-alpha` is the id Alpha knows test/primary by, as Claude Code names Claude models.
    setup.alpha.enqueue(reply.error(529), reply.fixture('anthropic-text'));
    setup.beta.enqueue(reply.error(529));
    expect((await postMessage(setup.gateway, messageBody('up-primary-alpha', ALPHA_FIRST))).status).toBe(529);
    expect((await postMessage(setup.gateway, messageBody('up-primary-alpha', ALPHA_FIRST))).status).toBe(200);
    const after = await scrape();
    const delta = (labels: Record<string, string>) => after.value('switchboard_requests_total', labels) - before.value('switchboard_requests_total', labels);
    expect(delta({ outcome: 'error', model: 'test/primary' })).toBe(1);
    expect(delta({ outcome: 'success', model: 'test/primary' })).toBe(1);
    expect(delta({ model: 'other' })).toBe(0);
  });

  it('needs a management key', async () => {
    const inference = await fetch(`${setup.gateway.baseUrl}/metrics`, { headers: { authorization: `Bearer ${setup.gateway.api_key}` } });
    expect(inference.status).toBe(403);
    expect((await fetch(`${setup.gateway.baseUrl}/metrics`)).status).toBe(401);
  });

  it('is served without a key on SWITCHBOARD_METRICS_PORT, and nothing else is', async () => {
    const line = setup.gateway.logs.find((entry) => entry.includes('"metrics listening"'));
    const origin = (JSON.parse(line ?? '{}') as { origin?: string }).origin;
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${origin}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    expect(parseScrape(await response.text()).families.some((family) => family.name === 'switchboard_requests_total')).toBe(true);
    expect((await fetch(`${origin}/api/v1/generations`)).status).toBe(404);
  });
});
