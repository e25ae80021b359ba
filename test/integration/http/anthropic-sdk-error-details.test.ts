/**
 * A malformed request to `/messages` and `/messages/count_tokens` through the official Anthropic SDK with its
 * default settings: the SDK reads the gateway's `error.details` as Anthropic's object, so `errorCode` is the
 * gateway's `invalid_request_parameters` and `details.parameters` names the wrong field. A list there (the shape
 * before) left `errorCode` null and `details` an array where the SDK's types say an object.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

const MODEL = 'anthropic/claude-sonnet-4.5';

let upstream: FakeUpstream;
let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  gateway = await startTestGateway({ catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-error-details-0001" }\n` });
  // Default settings but the address: retries, timeout and authentication are the SDK's own.
  client = new Anthropic({ baseURL: `${gateway.origin}/api`, apiKey: gateway.api_key });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

type BadRequest = InstanceType<typeof Anthropic.BadRequestError>;

/** What a call rejected with, or null when it resolved. */
async function rejection(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => null,
    (caught: unknown) => caught,
  );
}

/** The SDK's view of a 400 naming one wrong parameter: its class, code and Anthropic-shaped details. */
function expectParameterError(error: unknown, path: string, message: string): void {
  expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  const apiError = error as BadRequest;
  expect(apiError.status).toBe(400);
  expect(apiError.type).toBe('invalid_request_error');
  expect(apiError.errorCode).toBe('invalid_request_parameters');
  expect(Array.isArray(apiError.details)).toBe(false);
  expect(apiError.details).toEqual({ error_code: 'invalid_request_parameters', parameters: [{ path, message }] });
}

describe('a malformed request through the Anthropic SDK', () => {
  it('messages.create raises BadRequestError whose errorCode is the gateway code and whose details name the field', async () => {
    const error = await rejection(client.messages.create({ model: MODEL, max_tokens: 'many' as unknown as number, messages: [{ role: 'user', content: 'Hi' }] }));
    expectParameterError(error, '/body/max_tokens', 'must be integer');
    expect((error as BadRequest).requestID).toMatch(/^gen_/);
    expect(upstream.requests).toHaveLength(0);
  });

  it('messages.stream raises the same before any event', async () => {
    const stream = client.messages.stream({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], temperature: 'warm' as unknown as number });
    expectParameterError(await rejection(stream.finalMessage()), '/body/temperature', 'must be number');
    expect(upstream.requests).toHaveLength(0);
  });

  it('messages.countTokens raises the same', async () => {
    const error = await rejection(client.messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }], tools: 'none' as unknown as [] }));
    expectParameterError(error, '/body/tools', 'must be array');
    expect(upstream.requests).toHaveLength(0);
  });

  it('an error with nothing to detail has no details and no code', async () => {
    const refused = new Anthropic({ baseURL: `${gateway.origin}/api`, apiKey: 'sb-not-a-live-key' });
    const error = await rejection(refused.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] }));
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((error as InstanceType<typeof Anthropic.AuthenticationError>).errorCode).toBeNull();
    expect((error as InstanceType<typeof Anthropic.AuthenticationError>).details).toBeNull();
  });
});
