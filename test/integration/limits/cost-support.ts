/**
 * Shared pieces of the cost suites: a `/messages` call made with a limited key and read to its end as a client
 * reads its cost, and the check that the answer, the generation record and the key's spending all say the same.
 */
import { expect } from 'vitest';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { listedKey, type IssuedKey } from './limits-support.ts';

/** What a client reads of an answer's cost: the generation id, the usage and a tool loop's steps. */
export interface CostedCall {
  /** The `request-id` header: the generation's id. */
  id: string;
  /** The answer's usage: the JSON body's, or the stream's last `message_delta`'s. */
  usage: Record<string, any>;
  steps?: Array<{ cost: number }>;
}

/** Posts `body` with `key` (routing metadata asked for) and reads the answer to its end, JSON or stream. */
export async function postForCost(gateway: Pick<TestGateway, 'baseUrl'>, key: string, body: Record<string, unknown>): Promise<CostedCall> {
  const response = await fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-gateway-metadata': 'enabled' },
    body: JSON.stringify(body),
  });
  const id = response.headers.get('request-id') ?? '';
  if (body.stream !== true) {
    const message = (await response.json()) as Record<string, any>;
    expect(response.status, JSON.stringify(message)).toBe(200);
    return { id, usage: message.usage, steps: message.gateway_metadata?.steps };
  }
  expect(response.status).toBe(200);
  let usage: Record<string, any> = {};
  let steps: CostedCall['steps'];
  for await (const event of readSseEvents(response.body as ReadableStream<Uint8Array>)) {
    if (event.event === 'message_delta') usage = (JSON.parse(event.data) as { usage: Record<string, any> }).usage;
    if (event.event === 'message_stop') steps = (JSON.parse(event.data) as { gateway_metadata?: { steps?: CostedCall['steps'] } }).gateway_metadata?.steps;
  }
  return { id, usage, steps };
}

/** Expects the answer's `usage.cost`, its generation record's cost and `issued`'s spending to be `expected` USD. */
export async function expectCharged(gateway: TestGateway, issued: IssuedKey, call: CostedCall, expected: number): Promise<void> {
  const record = await generationOf(gateway, call.id);
  const key = (await listedKey(gateway, issued.hash)).usage.cost as number;
  expect(call.usage.cost).toBeCloseTo(expected, 12);
  expect(record.cost).toBeCloseTo(expected, 12);
  expect(key).toBeCloseTo(expected, 12);
}
