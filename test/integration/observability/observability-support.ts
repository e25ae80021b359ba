/**
 * Shared pieces of the observability suites: reading generation records over HTTP with the management key
 * (after the gateway wrote its queue, or by polling as a client would), and a gateway on two Anthropic-format
 * fakes whose one model has known prices, so every cost can be checked by hand.
 */
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'vitest';
import { startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '#test/helpers/start-gateway.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import type { DecodedSpan } from '#test/helpers/otlp-decode.ts';
import { createDestination, receivedSpans, TRACES_PATH } from './destination-receivers.ts';
import { priceOf } from '#test/helpers/token-price.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';

/** USD per million tokens of `test/primary` on both providers: input, output. */
export const PRICES = { input: 1, output: 2 } as const;

/** A generation record as `GET /generations/{id}` returns it. */
export type GenerationBody = Record<string, any>;

/** The record of `id`, after the gateway wrote what it had queued. */
export async function generationOf(gateway: TestGateway, id: string, key = gateway.management_key): Promise<GenerationBody> {
  await gateway.server.flushRecords();
  const response = await callApi(gateway.baseUrl, 'GET', `/generations/${id}`, { key });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data as GenerationBody;
}

/** Polls `GET /generations/{id}` until it answers 200 (records are written about every flush interval). */
export async function waitForGeneration(gateway: TestGateway, id: string, timeoutMs = 15_000): Promise<GenerationBody> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await callApi(gateway.baseUrl, 'GET', `/generations/${id}`, { key: gateway.management_key });
    if (response.status === 200) return response.body.data as GenerationBody;
    expect(response.status, JSON.stringify(response.body)).toBe(404);
    if (Date.now() > deadline) throw new Error(`generation ${id} was not recorded within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Two fakes (Alpha, Beta) serving `test/primary` at PRICES, and the gateway routing to them. */
export interface RecordsGateway {
  alpha: FakeUpstream;
  beta: FakeUpstream;
  gateway: TestGateway;
  close(): Promise<void>;
}

/** Starts the fakes and the gateway (records flushed every 50 ms unless `env` says otherwise). */
export async function startRecordsGateway(options: TestGatewayOptions & { extraYaml?: string } = {}): Promise<RecordsGateway> {
  const [alpha, beta] = await Promise.all([startFakeAnthropic(), startFakeAnthropic()]);
  const catalog = catalogYaml(
    [anthropicProviderYaml('alpha', alpha), anthropicProviderYaml('beta', beta)],
    [
      modelYaml('test/primary', [
        { provider: 'alpha', model: 'up-primary-alpha', price: [PRICES.input, PRICES.output] },
        { provider: 'beta', model: 'up-primary-beta', price: [PRICES.input, PRICES.output] },
      ]),
      modelYaml('test/other', [{ provider: 'beta', model: 'up-other-beta', price: [PRICES.input, PRICES.output] }]),
    ],
  );
  const gateway = await startTestGateway({
    ...options,
    catalogYaml: `${catalog}${options.extraYaml ?? ''}`,
    env: { SWITCHBOARD_RECORD_FLUSH_MS: '50', ...options.env },
  });
  return {
    alpha,
    beta,
    gateway,
    async close() {
      await gateway.close();
      await Promise.all([alpha.close(), beta.close()]);
    },
  };
}

/** USD of `input` and `output` tokens at PRICES, as the gateway computes it. */
export function costOf(input: number, output: number): number {
  return priceOf(input, output, [PRICES.input, PRICES.output]);
}

/** OTLP's span kind of an outgoing call: each attempt's span. */
const SPAN_KIND_CLIENT = 3;

/** A capture server that `gateway` exports its traces to (an OTLP/protobuf destination created over the API). */
export async function startOtlpCollector(gateway: TestGateway): Promise<CaptureServer> {
  const collector = await startCaptureServer({ status: 200, body: {} });
  await createDestination(gateway, { name: 'otlp', kind: 'otlp', endpoint: `${collector.url}${TRACES_PATH}`, protocol: 'http/protobuf' });
  return collector;
}

/** The CLIENT spans of generation `id` the collector received, in attempt order, once `count` of them arrived. */
export async function attemptSpans(gateway: TestGateway, collector: CaptureServer, id: string, count: number): Promise<DecodedSpan[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    await gateway.server.flushRecords();
    const all = receivedSpans(collector, TRACES_PATH);
    const generation = all.find((span) => span.attributes['switchboard.generation.id'] === id);
    if (generation) {
      const traced = all.filter((span) => span.traceId === generation.traceId && span.kind === SPAN_KIND_CLIENT);
      if (traced.length >= count) return traced.sort((a, b) => Number(a.attributes['switchboard.attempt.index']) - Number(b.attributes['switchboard.attempt.index']));
    }
    if (Date.now() > deadline) throw new Error(`no attempt spans of ${id} arrived`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A records gateway exporting its traces to an OTLP collector, and the Anthropic SDK as its client. */
export interface TracedGateway {
  setup: RecordsGateway;
  client: Anthropic;
  collector: CaptureServer;
}

/** Starts a records gateway, the collector it exports to (OTLP/protobuf) and an SDK client on its inference key. */
export async function startTracedGateway(): Promise<TracedGateway> {
  const setup = await startRecordsGateway();
  const client = new Anthropic({ baseURL: `${setup.gateway.origin}/api`, authToken: setup.gateway.api_key, apiKey: null, maxRetries: 0 });
  return { setup, client, collector: await startOtlpCollector(setup.gateway) };
}

/** Polls `read` until its value passes `check` (records and a key's spending settle after the response), for 15 s. */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => void): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    try {
      check(value);
      return value;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
