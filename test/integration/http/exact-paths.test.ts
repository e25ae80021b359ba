/**
 * Paths are matched exactly, as Anthropic's API matches them. Express's defaults served `POST /api/v1/Messages`
 * and `POST /api/v1/messages/` as `POST /api/v1/messages` (and every other path in any case, with or without a
 * trailing slash). Now a near miss of a documented path answers 404 in Anthropic's error shape, before
 * authentication, naming the path meant; no upstream is called. A client whose base URL ends in a slash is
 * unaffected: the Anthropic SDK joins `…/api/` and `/v1/messages` into the exact path.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

let upstream: FakeUpstream;
let gateway: TestGateway;
const MESSAGE = { model: 'anthropic/claude-sonnet-4.5', max_tokens: 8, messages: [{ role: 'user' as const, content: 'Hi' }] };

beforeAll(async () => {
  upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  gateway = await startTestGateway({ catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-exact-paths-0001" }\n` });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const NEAR_MISSES: { method: string; path: string; meant: string; inference?: boolean }[] = [
  { method: 'POST', path: '/api/v1/Messages', meant: '/api/v1/messages', inference: true },
  { method: 'POST', path: '/api/v1/messages/', meant: '/api/v1/messages', inference: true },
  { method: 'POST', path: '/API/V1/MESSAGES', meant: '/api/v1/messages', inference: true },
  { method: 'POST', path: '/api/v1/messages/Count_Tokens', meant: '/api/v1/messages/count_tokens', inference: true },
  { method: 'GET', path: '/api/v1/byok/', meant: '/api/v1/byok' },
  { method: 'GET', path: '/api/v1/BYOK', meant: '/api/v1/byok' },
  { method: 'GET', path: '/api/v1/Byok/7d2c5e1a-0000-4000-8000-00000000AbCd/', meant: '/api/v1/byok/7d2c5e1a-0000-4000-8000-00000000AbCd' },
  { method: 'GET', path: '/api/v1/models/', meant: '/api/v1/models' },
  { method: 'OPTIONS', path: '/api/v1/Messages', meant: '/api/v1/messages' },
  { method: 'HEAD', path: '/api/v1/Keys', meant: '/api/v1/keys' },
];

describe('a documented path in another case or with a trailing slash', () => {
  it.each(NEAR_MISSES)('$method $path: 404 naming $meant, nothing sent upstream', async ({ method, path, meant, inference }) => {
    const before = upstream.requests.length;
    const key = inference ? gateway.api_key : gateway.management_key;
    const body = method === 'POST' ? JSON.stringify(MESSAGE) : undefined;
    const response = await fetch(`${gateway.origin}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body } : {}) });
    expect(response.status).toBe(404);
    expect(upstream.requests).toHaveLength(before);
    if (method === 'HEAD') return;
    expect(await response.json()).toMatchObject({
      type: 'error',
      error: {
        type: 'not_found_error',
        code: 404,
        message: `Not found: ${method} ${path} is not a path of this API (paths are case-sensitive and end without a slash): did you mean ${meant}?`,
      },
    });
  });

  // Every error in Anthropic's shape names its request. A near miss makes no generation, so no X-Generation-Id,
  // not even for a /messages path (it had one, there the id of no generation).
  it.each(NEAR_MISSES.filter(({ method }) => method !== 'HEAD'))('$method $path carries a request_id, in its body and request-id, without X-Generation-Id', async ({ method, path, inference }) => {
    const key = inference ? gateway.api_key : gateway.management_key;
    const response = await fetch(`${gateway.origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(method === 'POST' ? { body: JSON.stringify(MESSAGE) } : {}),
    });
    expect(response.status).toBe(404);
    const body = (await response.json()) as { request_id?: string };
    expect(body.request_id).toMatch(/^gen_[0-9a-z]{9}[A-Za-z0-9_-]{15}$/);
    expect(response.headers.get('request-id')).toBe(body.request_id);
    expect(response.headers.get('x-generation-id')).toBeNull();
  });

  it('through the Anthropic SDK: a base URL typed in another case gets a NotFoundError with its request_id', async () => {
    const client = new Anthropic({ baseURL: `${gateway.origin}/API`, apiKey: gateway.api_key, maxRetries: 0 });
    const error = await client.messages.create(MESSAGE).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect((error as InstanceType<typeof Anthropic.NotFoundError>).requestID).toMatch(/^gen_/);
  });

  it('is a 404 before authentication: no key at all still learns the path is wrong', async () => {
    const response = await fetch(`${gateway.origin}/api/v1/Messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(MESSAGE) });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('did you mean /api/v1/messages?');
  });

  it('a path the spec has nowhere names itself, without a guess', async () => {
    const response = await fetch(`${gateway.origin}/api/v1/nothing?x=1`, { headers: { authorization: `Bearer ${gateway.management_key}` } });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ type: 'error', error: { type: 'not_found_error', code: 404, message: 'Not found: GET /api/v1/nothing is not a path of this API' }, request_id: response.headers.get('request-id') });
  });
});

describe('a client base URL with and without a trailing slash', () => {
  it.each([`/api`, `/api/`])('the Anthropic SDK with baseURL <origin>%s creates a message', async (suffix) => {
    const client = new Anthropic({ baseURL: `${gateway.origin}${suffix}`, authToken: gateway.api_key, maxRetries: 0 });
    const before = upstream.requests.length;
    const message = await client.messages.create(MESSAGE);
    expect(message.type).toBe('message');
    expect(upstream.requests).toHaveLength(before + 1);
  });

  it.each(['/api', '/api/', '/api/v1', '/api/v1/'])('HEAD %s (Claude Code’s probe of its base URL) answers 200', async (path) => {
    const response = await fetch(`${gateway.origin}${path}`, { method: 'HEAD' });
    expect(response.status).toBe(200);
  });
});
