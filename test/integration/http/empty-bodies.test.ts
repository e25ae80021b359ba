/**
 * An empty body where the operation requires one, sent as `application/json`: no bytes (`Content-Length: 0`),
 * a chunked body of no bytes, or a byte-order mark alone. The body parsers read each as `{}`, so every `PATCH`
 * answered 200 as a change of nothing and every `POST` complained of its first required property. Now each
 * answers 400 "the body is empty" in the operation's error shape, after authentication, and stores nothing;
 * `{}` is still a change of nothing, and an operation without a body still ignores an empty one.
 */
import { describe, expect, it } from 'vitest';
import { callApi } from '#test/helpers/management-api.ts';
import { checkResponse } from '#test/helpers/spec-validator.ts';
import { useFuzzSetup } from '#test/integration/http/spec-fuzz-support.ts';

const setup = useFuzzSetup();
const MESSAGE = 'Invalid request parameters: the body is empty: send a JSON object';

const OPERATIONS = [
  { method: 'POST', template: '/messages', list: undefined },
  { method: 'POST', template: '/messages/count_tokens', list: undefined },
  { method: 'POST', template: '/byok', list: '/byok' },
  { method: 'PATCH', template: '/byok/{id}', list: '/byok' },
  { method: 'POST', template: '/keys', list: '/keys' },
  { method: 'PATCH', template: '/keys/{hash}', list: '/keys' },
  { method: 'PATCH', template: '/workspace/settings', list: '/workspace/settings' },
  { method: 'POST', template: '/observability/destinations', list: '/observability/destinations' },
  { method: 'PATCH', template: '/observability/destinations/{id}', list: '/observability/destinations' },
];

/** A body of `bytes` sent chunked: no Content-Length. */
function chunked(bytes: Uint8Array): RequestInit {
  const body = new ReadableStream({
    start(controller) {
      if (bytes.length > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
  return { body, duplex: 'half' } as RequestInit;
}

const BODIES: [string, () => RequestInit][] = [
  ['no bytes', () => ({ body: '' })],
  ['a chunked body of no bytes', () => chunked(new Uint8Array())],
  ['a byte-order mark alone', () => ({ body: '\uFEFF' })],
  ['a chunked byte-order mark alone', () => chunked(new Uint8Array([0xef, 0xbb, 0xbf]))],
];

const CASES = OPERATIONS.flatMap((operation) => BODIES.map(([label, body]) => ({ ...operation, label, body })));

function keyFor(template: string): string {
  return template.startsWith('/messages') ? setup.gateway.api_key : setup.gateway.management_key;
}

async function read(list: string | undefined): Promise<unknown> {
  if (list === undefined) return undefined;
  return (await callApi(setup.gateway.baseUrl, 'GET', list === '/workspace/settings' ? list : `${list}?limit=100`, { key: setup.gateway.management_key })).body;
}

describe('an empty body where one is required', () => {
  it.each(CASES)('$method $template with $label: 400 the body is empty, nothing stored', async ({ method, template, list, body }) => {
    const before = await read(list);
    const sent = setup.upstream.requests.length;
    const path = template.replace(/\{[a-z]+\}/, setup.ids[template] ?? '');
    const headers = { authorization: `Bearer ${keyFor(template)}`, 'content-type': 'application/json' };
    const response = await fetch(`${setup.gateway.baseUrl}${path}`, { method, headers, ...body() });
    const answer = (await response.json()) as { error: { message: string } };
    expect(response.status, JSON.stringify(answer)).toBe(400);
    expect(checkResponse({ path: template, method, status: 400, contentType: response.headers.get('content-type') ?? '', body: answer }).errors).toEqual([]);
    expect(answer.error.message).toBe(MESSAGE);
    expect(await read(list)).toEqual(before);
    expect(setup.upstream.requests).toHaveLength(sent);
  });

  it.each(OPERATIONS)('$method $template with an empty body and no key: 401 first', async ({ method, template }) => {
    const path = template.replace(/\{[a-z]+\}/, setup.ids[template] ?? '');
    const response = await fetch(`${setup.gateway.baseUrl}${path}`, { method, headers: { 'content-type': 'application/json' }, body: '' });
    expect(response.status).toBe(401);
  });

  it('PATCH with {} is still a change of nothing', async () => {
    const before = await read('/byok');
    const response = await callApi(setup.gateway.baseUrl, 'PATCH', `/byok/${setup.ids['/byok/{id}']}`, { key: setup.gateway.management_key, body: {} });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(await read('/byok')).toEqual(before);
  });

  it('an operation without a body ignores an empty one sent as JSON', async () => {
    const created = await callApi(setup.gateway.baseUrl, 'POST', '/keys', { key: setup.gateway.management_key, body: { kind: 'inference', name: 'to delete' } });
    const headers = { authorization: `Bearer ${setup.gateway.management_key}`, 'content-type': 'application/json' };
    const listed = await fetch(`${setup.gateway.baseUrl}/keys`, { method: 'GET', headers });
    expect(listed.status).toBe(200);
    const deleted = await fetch(`${setup.gateway.baseUrl}/keys/${created.body.data.hash}`, { method: 'DELETE', headers, body: '' });
    expect(deleted.status).toBe(204);
  });
});
