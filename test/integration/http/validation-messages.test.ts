/**
 * Every kind of validator refusal names its first problem in the 400's message, not only in `details`: a
 * client that shows only the message (the Anthropic SDK's `BadRequestError.message`, a log line, a CLI) learns
 * what to fix. Before, a missing `max_tokens`, a string `max_tokens`, an unknown property of a management body
 * or a value outside an enum answered the bare `Invalid request parameters`. One row per validator keyword,
 * on `/messages` (Anthropic's shape, through the SDK) and on management operations (`ErrorBody`).
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

const MODEL = 'anthropic/claude-sonnet-4.5';
const PREFIX = 'Invalid request parameters: ';
const USER = [{ role: 'user', content: 'Hi' }];

let upstream: FakeUpstream;
let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  gateway = await startTestGateway({ catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-validation-msg-0001" }\n` });
  client = new Anthropic({ baseURL: `${gateway.origin}/api`, authToken: gateway.api_key, apiKey: null, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

type BadRequest = InstanceType<typeof Anthropic.BadRequestError>;

// keyword, the body sent to POST /messages, the message expected after the prefix, the first detail's path.
const MESSAGES_CASES: readonly [string, Record<string, unknown>, string, string][] = [
  ['required', { model: MODEL, messages: USER }, 'max_tokens: is required', '/body/max_tokens'],
  ['required (a plugin entry)', { model: MODEL, max_tokens: 8, messages: USER, plugins: [{}] }, 'plugins[0].id: is required', '/body/plugins/0/id'],
  ['oneOf (the variant its const tag chose)', { model: MODEL, max_tokens: 8, messages: USER, thinking: { type: 'enabled' } }, "thinking (type enabled) must have required property 'budget_tokens'", '/body/thinking/budget_tokens'],
  ['oneOf', { model: MODEL, max_tokens: 8, messages: USER, cache_control: 5 }, 'cache_control: must be object or null', '/body/cache_control'],
  ['anyOf', { model: MODEL, max_tokens: 8, messages: USER, output_config: { format: 5 } }, 'output_config.format: must be null or object', '/body/output_config/format'],
  ['required (in a list entry)', { model: MODEL, max_tokens: 8, messages: USER, fallbacks: [{}] }, 'fallbacks[0].model: is required', '/body/fallbacks/0/model'],
  ['type', { model: MODEL, max_tokens: '5', messages: USER }, 'max_tokens: must be integer', '/body/max_tokens'],
  ['type (union of types)', { model: MODEL, max_tokens: 8, messages: USER, plugins: [null] }, 'plugins[0]: must be object', '/body/plugins/0'],
  ['enum', { model: MODEL, max_tokens: 8, messages: USER, speed: 'warp' }, 'speed: must be equal to one of the allowed values: fast, standard, null', '/body/speed'],
  ['minItems', { model: MODEL, max_tokens: 8, messages: USER, models: [] }, 'models: must NOT have fewer than 1 items', '/body/models'],
  ['maxItems', { model: MODEL, max_tokens: 8, messages: USER, fallbacks: [{ model: 'a' }, { model: 'b' }, { model: 'c' }, { model: 'd' }] }, 'fallbacks: must NOT have more than 3 items', '/body/fallbacks'],
  ['minLength', { model: MODEL, max_tokens: 8, messages: USER, models: [''] }, 'models[0]: must NOT have fewer than 1 characters', '/body/models/0'],
  ['maxLength', { model: MODEL, max_tokens: 8, messages: USER, session_id: 's'.repeat(300) }, 'session_id: must NOT have more than 256 characters', '/body/session_id'],
  ['additionalProperties', { model: MODEL, max_tokens: 8, messages: USER, fallbacks: [{ model: 'a', weight: 2 }] }, 'fallbacks[0].weight: is not a known property here (remove it)', '/body/fallbacks/0/weight'],
  ['minimum', { model: MODEL, max_tokens: 8, messages: USER, temperature: -1 }, 'temperature: must be >= 0', '/body/temperature'],
  ['maximum', { model: MODEL, max_tokens: 8, messages: USER, temperature: 7 }, 'temperature: must be <= 2', '/body/temperature'],
];

describe('POST /messages through the Anthropic SDK', () => {
  it.each(MESSAGES_CASES)('%s: BadRequestError.message names the path and the problem', async (_keyword, body, expected, path) => {
    const error = await client.messages.create(body as unknown as Anthropic.MessageCreateParamsNonStreaming).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const apiError = error as BadRequest;
    expect(apiError.status).toBe(400);
    expect(apiError.message).toContain(JSON.stringify(`${PREFIX}${expected}`).slice(1, -1));
    const sent = apiError.error as { error: { message: string; details: { error_code: string; parameters: { path: string }[] } } };
    expect(sent.error.message).toBe(`${PREFIX}${expected}`);
    expect(sent.error.details.error_code).toBe('invalid_request_parameters');
    expect(sent.error.details.parameters[0]?.path).toBe(path);
    expect(upstream.requests).toHaveLength(0);
  });
});

// keyword, method, path under /api/v1, the JSON body (or none), the message expected after the prefix, the first detail's path.
const MANAGEMENT_CASES: readonly [string, string, string, unknown, string, string][] = [
  ['required', 'POST', '/keys', { name: 'k' }, 'kind: is required', '/body/kind'],
  ['type', 'POST', '/keys', { kind: 'inference', name: 5 }, 'name: must be string or null', '/body/name'],
  ['enum', 'POST', '/keys', { kind: 'superuser' }, 'kind: must be equal to one of the allowed values: management, inference', '/body/kind'],
  ['additionalProperties', 'POST', '/observability/destinations', { name: 'd', kind: 'webhook', endpoint: 'https://example.com/hook', signing_secret: 's'.repeat(16), colour: 'red' }, 'colour: is not a known property here (remove it)', '/body/colour'],
  ['minLength', 'POST', '/observability/destinations', { name: '', kind: 'webhook', endpoint: 'https://example.com/hook' }, 'name: must NOT have fewer than 1 characters', '/body/name'],
  ['maxLength', 'POST', '/keys', { kind: 'inference', name: 'n'.repeat(256) }, 'name: must NOT have more than 255 characters', '/body/name'],
  ['pattern', 'DELETE', `/keys/${'z'.repeat(64)}`, undefined, 'path parameter hash: must match pattern "^[a-f0-9]{64}$"', '/params/hash'],
  ['format', 'POST', '/observability/destinations', { name: 'd', kind: 'webhook', endpoint: 'https://example.com/hook', signing_secret: 's'.repeat(16), workspace_id: 'not-a-uuid' }, 'workspace_id: must match format "uuid"', '/body/workspace_id'],
  ['minimum', 'POST', '/keys', { kind: 'inference', requests_per_minute: 0 }, 'requests_per_minute: must be >= 1', '/body/requests_per_minute'],
  ['maximum', 'POST', '/observability/destinations', { name: 'd', kind: 'webhook', endpoint: 'https://example.com/hook', signing_secret: 's'.repeat(16), sampling_rate: 2 }, 'sampling_rate: must be <= 1', '/body/sampling_rate'],
  ['type (query parameter)', 'GET', '/generations?limit=many', undefined, 'query parameter limit: must be integer', '/query/limit'],
  ['type (the body itself)', 'POST', '/keys', [], 'the body: must be object', '/body'],
];

describe('management operations (ErrorBody)', () => {
  it.each(MANAGEMENT_CASES)('%s: error.message names the path and the problem', async (_keyword, method, path, body, expected, detailPath) => {
    const response = await fetch(`${gateway.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${gateway.management_key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const sent = (await response.json()) as { error: { code: number; message: string; details: { path: string; message: string }[] } };
    expect(response.status).toBe(400);
    expect(sent.error.code).toBe(400);
    expect(sent.error.message).toBe(`${PREFIX}${expected}`);
    expect(Array.isArray(sent.error.details)).toBe(true);
    expect(sent.error.details[0]?.path).toBe(detailPath);
  });
});
