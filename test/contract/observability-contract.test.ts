/**
 * The contract of the observability operations, run against the Prism mock and the real gateway like
 * contract.test.ts: `/generations`, `/workspace/settings`, `/observability/destinations` and `/metrics`,
 * each answer checked against the spec by an independent validator. `Prefer: code=…` picks the answer on the
 * mock where only the real gateway can tell (which key kind was sent, whether a record exists).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResponse } from '#test/helpers/spec-validator.ts';
import { startMockTarget, startServerTarget, type ContractTarget } from '#test/contract/contract-targets.ts';

const MESSAGE = { model: 'anthropic/claude-sonnet-4.5', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };

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
  return { status: response.status, contentType, body, headers: response.headers };
}

function expectConforms(result: Awaited<ReturnType<typeof call>>, path: string, method: string): void {
  const check = checkResponse({ path, method, status: result.status, contentType: result.contentType, body: result.body });
  expect(check.errors, JSON.stringify(result.body)).toEqual([]);
}

function defineSuite(name: ContractTarget['name'], start: () => Promise<ContractTarget>): void {
  describe(`observability contract: ${name}`, () => {
    let target: ContractTarget;
    beforeAll(async () => {
      target = await start();
    });
    afterAll(async () => {
      await target?.close();
    });

    it('GET /generations/{id} reads the record of a request (200), a missing one is 404', async () => {
      const message = await call(target, 'POST', '/messages', { key: target.inferenceKey, body: MESSAGE });
      const id = message.headers.get('x-generation-id') ?? '';
      let result = await call(target, 'GET', `/generations/${id}`, { key: target.managementKey });
      for (let tries = 0; result.status === 404 && tries < 100; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        result = await call(target, 'GET', `/generations/${id}`, { key: target.managementKey });
      }
      expect(result.status).toBe(200);
      expectConforms(result, '/generations/{id}', 'get');
      const missing = await call(target, 'GET', `/generations/gen_${'Z'.repeat(24)}`, { key: target.managementKey, headers: { prefer: 'code=404' } });
      expect(missing.status).toBe(404);
      expectConforms(missing, '/generations/{id}', 'get');
    });

    it('GET /generations lists with totals (200), needs a management key (403), refuses a bad filter (400)', async () => {
      const list = await call(target, 'GET', '/generations?limit=5&status=success', { key: target.managementKey });
      expect(list.status).toBe(200);
      expectConforms(list, '/generations', 'get');
      const forbidden = await call(target, 'GET', '/generations', { key: target.inferenceKey, headers: { prefer: 'code=403' } });
      expect(forbidden.status).toBe(403);
      expectConforms(forbidden, '/generations', 'get');
      const bad = await call(target, 'GET', '/generations?status=done', { key: target.managementKey });
      expect(bad.status).toBe(400);
      expectConforms(bad, '/generations', 'get');
      const anonymous = await call(target, 'GET', '/generations');
      expect(anonymous.status).toBe(401);
      expectConforms(anonymous, '/generations', 'get');
    });

    it('GET and PATCH /workspace/settings (200), a retention of 0 days is 400', async () => {
      const read = await call(target, 'GET', '/workspace/settings', { key: target.managementKey });
      expect(read.status).toBe(200);
      expectConforms(read, '/workspace/settings', 'get');
      const changed = await call(target, 'PATCH', '/workspace/settings', { key: target.managementKey, body: { store_content: false, content_retention_days: 14 } });
      expect(changed.status).toBe(200);
      expectConforms(changed, '/workspace/settings', 'patch');
      const bad = await call(target, 'PATCH', '/workspace/settings', { key: target.managementKey, body: { content_retention_days: 0 } });
      expect(bad.status).toBe(400);
      expectConforms(bad, '/workspace/settings', 'patch');
    });

    it('destinations: create (201), list, read, change (200), delete (204), unknown (404), invalid (400)', async () => {
      const created = await call(target, 'POST', '/observability/destinations', {
        key: target.managementKey,
        body: { name: 'contract hook', kind: 'webhook', endpoint: 'https://hooks.example.com/contract', signing_secret: 'whsec_contract_secret_000', disabled: true },
      });
      expect(created.status).toBe(201);
      expectConforms(created, '/observability/destinations', 'post');
      const id = (created.body as { data: { id: string } }).data.id;
      const list = await call(target, 'GET', '/observability/destinations', { key: target.managementKey });
      expect(list.status).toBe(200);
      expectConforms(list, '/observability/destinations', 'get');
      const one = await call(target, 'GET', `/observability/destinations/${id}`, { key: target.managementKey });
      expect(one.status).toBe(200);
      expectConforms(one, '/observability/destinations/{id}', 'get');
      const patched = await call(target, 'PATCH', `/observability/destinations/${id}`, { key: target.managementKey, body: { sampling_rate: 0.5 } });
      expect(patched.status).toBe(200);
      expectConforms(patched, '/observability/destinations/{id}', 'patch');
      const deleted = await call(target, 'DELETE', `/observability/destinations/${id}`, { key: target.managementKey });
      expect(deleted.status).toBe(204);
      const missing = await call(target, 'GET', '/observability/destinations/00000000-0000-4000-8000-000000000000', { key: target.managementKey, headers: { prefer: 'code=404' } });
      expect(missing.status).toBe(404);
      expectConforms(missing, '/observability/destinations/{id}', 'get');
      const invalid = await call(target, 'POST', '/observability/destinations', { key: target.managementKey, body: { name: 'x', kind: 'smtp', endpoint: 'https://h.example.com' } });
      expect(invalid.status).toBe(400);
      expectConforms(invalid, '/observability/destinations', 'post');
    });

    it('GET /metrics answers the Prometheus text format (200)', async () => {
      const result = await call(target, 'GET', '/metrics', { key: target.managementKey });
      expect(result.status).toBe(200);
      expect(result.contentType).toContain('text/plain');
      expect(String(result.body)).toContain('switchboard_requests_total');
      expectConforms(result, '/metrics', 'get');
    });
  });
}

defineSuite('mock', startMockTarget);
defineSuite('server', startServerTarget);
