/**
 * Optional fields Anthropic accepts as `null` (its SDKs type them `… | null`, and the Python SDK sends a `None`
 * as `null`): a client tool's `type`, a document's `citations`, `output_config.format` and
 * `context_management`. Each is the field left out: it reaches an Anthropic-format upstream byte for byte, and
 * a translated vendor takes the request as if it were absent (a null-typed tool is a client tool there).
 */
import { describe, expect, it } from 'vitest';
import { reply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { postMessage } from './routing-support.ts';
import { useMixedVendorGateway } from './mixed-vendor-gateway.ts';

let openai: FakeUpstream;
let alpha: FakeUpstream;
let gateway: TestGateway;
useMixedVendorGateway((started) => ({ openai, alpha, gateway } = started));

const LOOKUP = { name: 'lookup', description: 'Looks a word up', input_schema: { type: 'object', properties: { word: { type: 'string' } } } };

const NULLS = [
  ['a client tool of type null', { tools: [{ type: null, ...LOOKUP }] }],
  ['document citations null', { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Notes' }, citations: null }, { type: 'text', text: 'Sum up.' }] }] }],
  ['output_config.format null', { output_config: { effort: 'high', format: null } }],
  ['context_management null', { context_management: null }],
] as const;

function request(model: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello there' }], ...fields };
}

describe('an optional field Anthropic accepts as null', () => {
  it.each(NULLS)('(%s) reaches an Anthropic-format upstream byte for byte', async (_name, fields) => {
    alpha.enqueue(reply.fixture('anthropic-text'));
    const body = request('test/anthropic', fields);
    const call = await postMessage(gateway, body);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(alpha.lastRequest().rawBody).toBe(JSON.stringify({ ...body, model: 'up-alpha' }));
  });

  it.each(NULLS)('(%s) is the field left out for a translated vendor', async (_name, fields) => {
    openai.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, request('test/openai', fields));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(openai.requests).toHaveLength(1);
    expect(openai.lastRequest().body).not.toHaveProperty('response_format');
  });

  it('a null-typed tool reaches a translated vendor as the client tool it is', async () => {
    openai.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, request('test/openai', { tools: [{ type: null, ...LOOKUP, future_hint_20270101: true }] }));

    // Read as a client tool, its properties are checked like any client tool's: an unknown one is named.
    expect(call.status).toBe(400);
    expect(JSON.stringify(call.body)).toContain('tools[0].future_hint_20270101 is not supported by OpenAI Chat Completions');

    openai.enqueue(reply.fixture('openai-text'));
    const ok = await postMessage(gateway, request('test/openai', { tools: [{ type: null, ...LOOKUP }] }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const sent = openai.lastRequest().body as { tools: Array<{ type: string; function: { name: string; parameters: unknown } }> };
    expect(sent.tools).toEqual([expect.objectContaining({ type: 'function', function: expect.objectContaining({ name: 'lookup', parameters: LOOKUP.input_schema }) })]);
  });
});
