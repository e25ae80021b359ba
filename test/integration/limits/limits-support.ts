/**
 * Shared pieces of the key-limit suites: a model priced high enough that a handful of requests spends a
 * visible credit limit, gateway keys created with limits through `POST /keys`, `/messages` calls made with
 * such a key, and the spending as the generation records and `GET /keys` report it.
 */
import { expect } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { ReplyDelivery } from '#test/helpers/fake-upstreams/fake-reply.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import type { RawSseEvent } from '#src/providers/provider-adapter.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { priceOf } from '#test/helpers/token-price.ts';

/** What the helpers need of a gateway (in process or a process of its own). */
export interface GatewayHandle {
  baseUrl: string;
  management_key: string;
}

/** USD per million tokens of `test/limited`: input, output. */
export const LIMITED_PRICES = { input: 1_000, output: 2_000 } as const;

/** The request every limit test sends: "Hello there" is estimated at 3 input tokens, and 64 may come out. */
export const LIMITED_REQUEST = { model: 'test/limited', max_tokens: 64, messages: [{ role: 'user', content: 'Hello there' }] } as const;

/** USD of `input` and `output` tokens at LIMITED_PRICES. */
export function limitedCost(input: number, output: number): number {
  return priceOf(input, output, [LIMITED_PRICES.input, LIMITED_PRICES.output]);
}

/** The worst case `LIMITED_REQUEST` reserves: 3 input tokens and 64 output tokens at LIMITED_PRICES. */
export const WORST_CASE_USD = limitedCost(3, 64);

/** The catalog: `test/limited` on one Anthropic-format fake. */
export function limitsCatalog(upstream: FakeUpstream): string {
  return catalogYaml(
    [anthropicProviderYaml('alpha', upstream)],
    [modelYaml('test/limited', [{ provider: 'alpha', model: 'up-limited', price: [LIMITED_PRICES.input, LIMITED_PRICES.output] }])],
  );
}

/** A fake that answers every request with the recorded text answer (JSON or stream), delivered as given. */
export function startAnsweringUpstream(delivery: ReplyDelivery = {}): Promise<FakeUpstream> {
  return startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text', delivery) });
}

/** A gateway key as `POST /keys` issued it. */
export interface IssuedKey {
  key: string;
  hash: string;
}

/** Issues an inference key with `limits` through the management API. */
export async function issueLimitedKey(gateway: GatewayHandle, limits: Record<string, unknown>): Promise<IssuedKey> {
  const response = await callApi<{ data: IssuedKey }>(gateway.baseUrl, 'POST', '/keys', { key: gateway.management_key, body: { kind: 'inference', name: 'limited', ...limits } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data;
}

/** Changes a key's limits (`PATCH /keys/{hash}`), expecting 200. */
export async function patchKey(gateway: GatewayHandle, hash: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  const response = await callApi<{ data: Record<string, any> }>(gateway.baseUrl, 'PATCH', `/keys/${hash}`, { key: gateway.management_key, body });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.data;
}

/** The key as `GET /keys` lists it (limits and usage). */
export async function listedKey(gateway: GatewayHandle, hash: string): Promise<Record<string, any>> {
  const response = await callApi<{ data: Record<string, any>[] }>(gateway.baseUrl, 'GET', '/keys?limit=100', { key: gateway.management_key });
  expect(response.status).toBe(200);
  const found = response.body.data.find((entry) => entry.hash === hash);
  expect(found, `key ${hash} is not listed`).toBeDefined();
  return found as Record<string, any>;
}

/** What a client sees of one `/messages` call made with `key`. */
export interface KeyCall {
  status: number;
  headers: Headers;
  body: Record<string, any>;
}

/** Posts `LIMITED_REQUEST` (plus `extra`) with `key` and reads the JSON answer. */
export async function postWithKey(gateway: GatewayHandle, key: string, extra: Record<string, unknown> = {}): Promise<KeyCall> {
  const response = await fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...LIMITED_REQUEST, ...extra }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}

/**
 * Posts as the Anthropic SDKs do: a 429 is retried after its `retry-after` (up to three times). A credit
 * limit whose rest is held by requests still settling answers 429, then 200 or 402 once they have.
 */
export async function postLikeSdk(gateway: GatewayHandle, key: string, extra: Record<string, unknown> = {}): Promise<KeyCall> {
  let call = await postWithKey(gateway, key, extra);
  for (let retry = 0; retry < 3 && call.status === 429; retry += 1) {
    expect(call.body.error.message).toMatch(/^Credit limit nearly reached for this key: /);
    await new Promise((resolve) => setTimeout(resolve, Number(call.headers.get('retry-after')) * 1000));
    call = await postWithKey(gateway, key, extra);
  }
  return call;
}

/** A streamed call: its status and every event, read to the end (or the JSON error when refused). */
export interface KeyStream {
  status: number;
  headers: Headers;
  events: RawSseEvent[];
  error?: Record<string, any>;
}

/** Posts a streaming `LIMITED_REQUEST` with `key` and reads the stream to its end. */
export async function streamWithKey(gateway: GatewayHandle, key: string): Promise<KeyStream> {
  const response = await fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...LIMITED_REQUEST, stream: true }),
  });
  if (!response.headers.get('content-type')?.includes('text/event-stream')) {
    return { status: response.status, headers: response.headers, events: [], error: (await response.json()) as Record<string, any> };
  }
  const events: RawSseEvent[] = [];
  if (response.body) for await (const event of readSseEvents(response.body)) events.push(event);
  return { status: response.status, headers: response.headers, events };
}

/**
 * The cost the generation records of the key add up to (`GET /generations` totals), polled until `requests`
 * records (of `status`, when given) are in.
 */
export async function recordedCost(gateway: GatewayHandle, hash: string, requests: number, status?: 'success'): Promise<number> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const filter = status ? `&status=${status}` : '';
    const response = await callApi<{ totals: { requests: number; cost: number } }>(gateway.baseUrl, 'GET', `/generations?key_hash=${hash}${filter}&limit=1`, { key: gateway.management_key });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    if (response.body.totals.requests >= requests) return response.body.totals.cost;
    if (Date.now() > deadline) throw new Error(`only ${response.body.totals.requests} of ${requests} records of key ${hash} arrived`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
