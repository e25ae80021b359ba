/**
 * The refusal-leave suites' shared steps: a streaming client that leaves once the gateway moved on from a refusal
 * and the next model's answer is under way, and what such a client is charged, as the generation record and the
 * key's spending show it once the gateway has settled the left stream.
 */
import { expect } from 'vitest';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import { eventually, waitForGeneration } from '#test/integration/observability/observability-support.ts';
import { listedKey, type IssuedKey } from '#test/integration/limits/limits-support.ts';
import { attemptTrail } from './refusal-support.ts';

/**
 * Streams `body` (which asks for a stream) with `key` and leaves once the next model's first delta follows the
 * fallback block; the generation id.
 */
export async function leaveAfterFallback(gateway: Pick<TestGateway, 'baseUrl'>, key: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<string> {
  const aborter = new AbortController();
  const response = await fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: aborter.signal,
  });
  expect(response.status).toBe(200);
  let fellBack = false;
  for await (const event of readSseEvents(response.body as ReadableStream<Uint8Array>)) {
    if (event.event === 'content_block_start' && event.data.includes('"fallback"')) fellBack = true;
    else if (fellBack && event.event === 'content_block_delta') break;
  }
  expect(fellBack).toBe(true);
  aborter.abort();
  return response.headers.get('x-generation-id') ?? '';
}

/** What the record of a stream left after a refusal must show. */
export interface LeftStreamCharges {
  /** The slug whose call refused, and the one whose answer the client left. */
  refused: string;
  serving: string;
  tokens: { input_tokens: number; output_tokens: number };
  /** USD on the record and the key's spending. */
  cost: number;
  /** A tool loop's finished steps on the record, when the suite checks them. */
  steps?: number;
}

/**
 * Expects the left stream's record (once cancelled) to carry `expected`'s tokens, the refusal among its attempts
 * and the left serving attempt as a success (a plain stream's, not a timeout), and record and key the cost.
 */
export async function expectLeftStreamCharged(gateway: TestGateway, issued: IssuedKey, id: string, expected: LeftStreamCharges): Promise<void> {
  const record = await eventually(
    () => waitForGeneration(gateway, id),
    (found) => expect(found.status).toBe('cancelled'),
  );
  expect(record.usage).toMatchObject(expected.tokens);
  if (expected.steps !== undefined) expect(record.tool_steps ?? []).toHaveLength(expected.steps);
  expect(attemptTrail(record)).toContain(`${expected.refused}:refusal`);
  expect(record.attempts.at(-1)).toMatchObject({ model: expected.serving, status: 'success' });
  expect(record.cost).toBeCloseTo(expected.cost, 12);
  await eventually(
    () => listedKey(gateway, issued.hash),
    (key) => expect(key.usage.cost).toBeCloseTo(expected.cost, 12),
  );
}
