/**
 * The contract suite: one set of HTTP tests run against the Prism mock and the real gateway, every response
 * checked against the spec by an independent validator. The negative cases break every limit of the
 * interface's Limits table. Two answers Prism cannot give as the gateway does are tested against the gateway
 * only (test/integration/http/methods-and-media-types.test.ts): a 405 (Prism answers its own problem+json
 * without `Allow`) and a body without Content-Type (Prism answers 400, not 415).
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageRequest, MessageResponse } from '#src/api-types.ts';
import { createSwitchboardClient } from '#src/client.ts';
import { checkResponse } from '#test/helpers/spec-validator.ts';
import { startMockTarget, startServerTarget, type ContractTarget } from '#test/contract/contract-targets.ts';

const MESSAGE: MessageRequest = { model: 'anthropic/claude-sonnet-4.5', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };
const HASH = 'a'.repeat(64);
// How users hand the SDK its key; the last is what Claude Code and the Python SDK send for ANTHROPIC_API_KEY.
const SDK_AUTH = {
  apiKey: (key: string) => ({ apiKey: key, authToken: null }),
  authToken: (key: string) => ({ authToken: key, apiKey: null }),
  'an x-api-key header': (key: string) => ({ apiKey: null, authToken: null, defaultHeaders: { 'X-Api-Key': key } }),
};

async function call(target: ContractTarget, method: string, path: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${target.baseUrl}${path}`, {
    method,
    headers: {
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const contentType = response.headers.get('content-type') ?? '';
  const text = await response.text();
  const body: unknown = contentType.includes('json') && text ? JSON.parse(text) : text;
  return { status: response.status, contentType, body, text, headers: response.headers };
}

function expectConforms(result: Awaited<ReturnType<typeof call>>, path: string, method: string): void {
  const check = checkResponse({ path, method, status: result.status, contentType: result.contentType, body: result.body });
  expect(check.errors, JSON.stringify(result.body)).toEqual([]);
}

function defineContractSuite(name: ContractTarget['name'], start: () => Promise<ContractTarget>): void {
  describe(`contract: ${name}`, () => {
    let target: ContractTarget;
    beforeAll(async () => {
      target = await start();
    });
    afterAll(async () => {
      await target?.close();
    });

    it('GET /health answers without a key', async () => {
      const result = await call(target, 'GET', '/health');
      expect(result.status).toBe(200);
      expectConforms(result, '/health', 'get');
    });

    it('GET /models lists the catalog', async () => {
      const result = await call(target, 'GET', '/models', { key: target.inferenceKey });
      expect(result.status).toBe(200);
      expectConforms(result, '/models', 'get');
    });

    it('POST /messages answers a message through the typed client', async () => {
      const client = createSwitchboardClient({ baseUrl: target.baseUrl, apiKey: target.inferenceKey });
      const { data, response } = await client.POST('/messages', { body: MESSAGE, params: { header: { 'X-Gateway-Metadata': 'disabled' } } });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-generation-id')).toBeTruthy();
      const message = data as MessageResponse;
      expect(message.type).toBe('message');
      expect(message.content[0]?.type).toBe('text');
      const check = checkResponse({ path: '/messages', method: 'post', status: 200, contentType: 'application/json', body: data });
      expect(check.errors).toEqual([]);
    });

    it('POST /messages with stream answers an event stream', async () => {
      const result = await call(target, 'POST', '/messages', { key: target.inferenceKey, body: { ...MESSAGE, stream: true }, headers: { accept: 'text/event-stream' } });
      expect(result.status).toBe(200);
      expect(result.contentType).toContain('text/event-stream');
      const events = [...result.text.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
      expect(events[0]).toBe('message_start');
      expect(events.at(-1)).toBe('message_stop');
    });

    it.each(Object.keys(SDK_AUTH) as (keyof typeof SDK_AUTH)[])('the Anthropic SDK (baseURL at /api) with %s gets a request_id equal to X-Generation-Id', async (how) => {
      const anthropic = new Anthropic({ baseURL: `${target.origin}/api`, maxRetries: 0, ...SDK_AUTH[how](target.inferenceKey) });
      const created = anthropic.messages.create(MESSAGE as Anthropic.MessageCreateParamsNonStreaming);
      const message = await created;
      const { response, request_id } = await created.withResponse();
      expect(message.type).toBe('message');
      expect(message.content[0]?.type).toBe('text');
      expect(request_id).toBeTruthy();
      expect(request_id).toBe(response.headers.get('x-generation-id'));
    });

    it.each([
      ['/messages', MESSAGE],
      ['/messages/count_tokens', { model: MESSAGE.model, messages: MESSAGE.messages }],
    ])('POST %s takes the key in x-api-key, with beta= empty', async (path, body) => {
      const result = await call(target, 'POST', `${path}?beta=`, { body, headers: { 'x-api-key': target.inferenceKey } });
      expect(result.status, result.text).toBe(200);
      expectConforms(result, path, 'post');
      expect(result.headers.get('request-id')).toBe(result.headers.get('x-generation-id'));
    });

    it('POST /messages without a key is 401 with a request-id', async () => {
      const result = await call(target, 'POST', '/messages', { body: MESSAGE });
      expect(result.status).toBe(401);
      expect(result.headers.get('request-id')).toBeTruthy();
      expect(result.headers.get('request-id')).toBe(result.headers.get('x-generation-id'));
    });

    it('a management key in x-api-key cannot create messages (403)', async () => {
      const result = await call(target, 'POST', '/messages', { body: MESSAGE, headers: { 'x-api-key': target.managementKey, prefer: 'code=403' } });
      expect(result.status).toBe(403);
      expectConforms(result, '/messages', 'post');
    });

    it('management operations ignore x-api-key (401 without Authorization)', async () => {
      const result = await call(target, 'GET', '/keys', { headers: { 'x-api-key': target.managementKey } });
      expect(result.status).toBe(401);
      expectConforms(result, '/keys', 'get');
    });

    it.each([
      ['/messages', MESSAGE, 'inferenceKey'],
      ['/keys', { kind: 'inference', name: 'x' }, 'managementKey'],
    ] as const)('POST %s with a text/plain body is 415 naming the type', async (path, body, key) => {
      const response = await fetch(`${target.baseUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${target[key]}`, 'content-type': 'text/plain' },
        body: JSON.stringify(body),
      });
      const result = { status: response.status, contentType: response.headers.get('content-type') ?? '', body: (await response.json()) as { error: { message: string } } };
      expect(result.status).toBe(415);
      expectConforms({ ...result, text: '', headers: response.headers }, path, 'post');
      expect(result.body.error.message).toBe('Unsupported Media Type: Content-Type must be application/json, got text/plain');
    });

    it('POST /messages/count_tokens counts input tokens', async () => {
      const result = await call(target, 'POST', '/messages/count_tokens', { key: target.inferenceKey, body: { model: MESSAGE.model, messages: MESSAGE.messages } });
      expect(result.status).toBe(200);
      expectConforms(result, '/messages/count_tokens', 'post');
    });

    it.each([
      ['POST', '/messages', '/messages', MESSAGE],
      ['POST', '/messages/count_tokens', '/messages/count_tokens', MESSAGE],
      ['GET', '/models', '/models', undefined],
      ['GET', '/byok', '/byok', undefined],
      ['POST', '/byok', '/byok', { provider: 'openai', key: 'sk-x' }],
      ['PATCH', '/byok/{id}', '/byok/3f0c1f7e-6f7d-4a34-9a51-8f3c2b8e1a10', { name: 'x' }],
      ['GET', '/keys', '/keys', undefined],
      ['PATCH', '/keys/{hash}', `/keys/${HASH}`, { limit: 5 }],
      ['DELETE', '/keys/{hash}', `/keys/${HASH}`, undefined],
    ])('%s %s without Authorization is 401', async (method, template, path, body) => {
      const result = await call(target, method, path, body === undefined ? {} : { body });
      expect(result.status).toBe(401);
      expectConforms(result, template, method.toLowerCase());
      const error = (result.body as { error: { code: number; message: string } }).error;
      expect(error).toMatchObject({ code: 401, message: 'Missing Authentication header' });
      // Anthropic's shape names its request, as Anthropic's API does: in the body and in `request-id`.
      if (template.startsWith('/messages') || template.startsWith('/models')) {
        expect((result.body as { request_id?: string }).request_id).toMatch(/^gen_/);
        expect(result.headers.get('request-id')).toBe((result.body as { request_id?: string }).request_id);
      } else {
        // The management shape names its request in `request-id` alone: its body keeps the generated clients' shape.
        expect(result.headers.get('request-id')).toMatch(/^gen_/);
        expect(Object.keys(result.body as object)).toEqual(['error']);
      }
    });

    const tooMany = (count: number, make: (index: number) => string) => Array.from({ length: count }, (_, index) => make(index));
    it.each([
      ['fallbacks has at most 3 entries', { ...MESSAGE, fallbacks: tooMany(4, (index) => `openai/m${index}`).map((model) => ({ model })) }],
      ['session_id is at most 256 characters', { ...MESSAGE, session_id: 's'.repeat(257) }],
      ['user is at most 256 characters', { ...MESSAGE, user: 'u'.repeat(257) }],
      ['stop_server_tools_when has at least 1 item', { ...MESSAGE, stop_server_tools_when: [] }],
      ['max_tokens is required', { model: MESSAGE.model, messages: MESSAGE.messages }],
      ['fallback entries have only model', { ...MESSAGE, fallbacks: [{ model: 'openai/gpt-5', extra: true }] }],
      ['provider rejects unknown keys', { ...MESSAGE, provider: { fastest: true } }],
      ['speed is fast or standard', { ...MESSAGE, speed: 'ludicrous' }],
    ])('POST /messages: %s (400)', async (_rule, body) => {
      const result = await call(target, 'POST', '/messages', { key: target.inferenceKey, body });
      expect(result.status).toBe(400);
      expectConforms(result, '/messages', 'post');
      expect((result.body as { error: { message: string } }).error.message).toMatch(/^Invalid request parameters/);
    });

    it.each([
      ['name is at most 255 characters', { name: 'n'.repeat(256) }],
      ['allowed_api_key_hashes has at least 1 entry', { allowed_api_key_hashes: [] }],
      ['allowed_api_key_hashes has at most 100 entries', { allowed_api_key_hashes: tooMany(101, (index) => index.toString(16).padStart(64, '0')) }],
      ['allowed_api_key_hashes entries are 64 lowercase hex', { allowed_api_key_hashes: ['A'.repeat(64)] }],
      ['allowed_models has at least 1 entry', { allowed_models: [] }],
      ['allowed_models has at most 100 entries', { allowed_models: tooMany(101, (index) => `openai/m${index}`) }],
      ['allowed_user_ids has at most 100 entries', { allowed_user_ids: tooMany(101, (index) => `user-${index}`) }],
      ['key has at least 1 character', { key: '' }],
      ['declared_region is global, europe, us or null', { declared_region: 'asia' }],
      ['unknown fields are rejected', { colour: 'blue' }],
    ])('PATCH /byok/{id}: %s (400)', async (_rule, body) => {
      const result = await call(target, 'PATCH', `/byok/${target.credentialId}`, { key: target.managementKey, body });
      expect(result.status).toBe(400);
      expectConforms(result, '/byok/{id}', 'patch');
      expect((result.body as { error: { message: string } }).error.message).toMatch(/^Invalid request parameters/);
    });

    it('PATCH /byok/{id} with an inference key is 403', async () => {
      const result = await call(target, 'PATCH', `/byok/${target.credentialId}`, { key: target.inferenceKey, body: { name: 'x' }, headers: { prefer: 'code=403' } });
      expect(result.status).toBe(403);
      expectConforms(result, '/byok/{id}', 'patch');
      expect(result.body).toEqual({ error: { code: 403, message: 'Only management keys can perform this operation' } });
    });

    it('PATCH /byok/{id} of an unknown credential is 404', async () => {
      const result = await call(target, 'PATCH', '/byok/00000000-0000-4000-8000-000000000000', { key: target.managementKey, body: { name: 'x' }, headers: { prefer: 'code=404' } });
      expect(result.status).toBe(404);
      expectConforms(result, '/byok/{id}', 'patch');
      expect(result.body).toEqual({ error: { code: 404, message: 'Resource not found' } });
    });

    it('PATCH /byok/{id} updates the credential', async () => {
      const result = await call(target, 'PATCH', `/byok/${target.credentialId}`, { key: target.managementKey, body: { name: 'renamed', disabled: false } });
      expect(result.status).toBe(200);
      expectConforms(result, '/byok/{id}', 'patch');
    });

    it('GET /byok lists and GET /byok/{id} reads credentials', async () => {
      const list = await call(target, 'GET', '/byok?offset=0&limit=10', { key: target.managementKey });
      expect(list.status).toBe(200);
      expectConforms(list, '/byok', 'get');
      const one = await call(target, 'GET', `/byok/${target.credentialId}`, { key: target.managementKey });
      expect(one.status).toBe(200);
      expectConforms(one, '/byok/{id}', 'get');
    });

    it('POST /byok creates a credential (201) and DELETE /byok/{id} deletes it (204)', async () => {
      const created = await call(target, 'POST', '/byok', { key: target.managementKey, body: { provider: 'openai', key: 'sk-contract-second-key-00000000000', name: 'second' } });
      expect(created.status).toBe(201);
      expectConforms(created, '/byok', 'post');
      const id = (created.body as { data: { id: string } }).data.id;
      const deleted = await call(target, 'DELETE', `/byok/${id}`, { key: target.managementKey });
      expect(deleted.status).toBe(204);
    });

    it('POST /keys issues a key once (201), GET /keys lists, DELETE /keys/{hash} revokes (204)', async () => {
      const created = await call(target, 'POST', '/keys', { key: target.managementKey, body: { kind: 'inference', name: 'contract' } });
      expect(created.status).toBe(201);
      expectConforms(created, '/keys', 'post');
      const { hash } = (created.body as { data: { hash: string } }).data;
      const list = await call(target, 'GET', '/keys', { key: target.managementKey });
      expect(list.status).toBe(200);
      expectConforms(list, '/keys', 'get');
      const revoked = await call(target, 'DELETE', `/keys/${hash}`, { key: target.managementKey });
      expect(revoked.status).toBe(204);
    });

    it('POST /keys with limits, PATCH /keys/{hash} changes them (200), a negative limit is 400', async () => {
      const created = await call(target, 'POST', '/keys', { key: target.managementKey, body: { kind: 'inference', name: 'limited', limit: 25, limit_reset: 'monthly', requests_per_minute: 60 } });
      expect(created.status).toBe(201);
      expectConforms(created, '/keys', 'post');
      const { hash } = (created.body as { data: { hash: string } }).data;
      const patched = await call(target, 'PATCH', `/keys/${hash}`, { key: target.managementKey, body: { limit: 5, limit_reset: 'daily', max_concurrent_streams: 2 } });
      expect(patched.status).toBe(200);
      expectConforms(patched, '/keys/{hash}', 'patch');
      const invalid = await call(target, 'PATCH', `/keys/${hash}`, { key: target.managementKey, body: { limit: -1 } });
      expect(invalid.status).toBe(400);
      expectConforms(invalid, '/keys/{hash}', 'patch');
    });

    it('a management key cannot create messages (403)', async () => {
      const result = await call(target, 'POST', '/messages', { key: target.managementKey, body: MESSAGE, headers: { prefer: 'code=403' } });
      expect(result.status).toBe(403);
      expectConforms(result, '/messages', 'post');
    });

    it('an unknown path is 404', async () => {
      const result = await call(target, 'GET', '/no-such-path', { key: target.managementKey });
      expect(result.status).toBe(404);
    });
  });
}

defineContractSuite('mock', startMockTarget);
defineContractSuite('server', startServerTarget);
