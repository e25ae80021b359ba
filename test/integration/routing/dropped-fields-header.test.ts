/**
 * `X-Switchboard-Dropped-Fields` over HTTP: fields a translated vendor (OpenAI Chat here) has no counterpart
 * for are dropped, and the answer names them (paths, never values), JSON and stream alike; an answer that
 * dropped nothing has no such header, and neither has an Anthropic-format upstream's, which gets every field.
 * The serving attempt of `gateway_metadata` and of the generation record lists them too. Before, the drop was
 * only logged: the client could not see it.
 */
import { describe, expect, it } from 'vitest';
import { reply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { metadataOf, postMessage, streamMessage, WITH_METADATA } from './routing-support.ts';
import { useMixedVendorGateway } from './mixed-vendor-gateway.ts';

let openai: FakeUpstream;
let alpha: FakeUpstream;
let gateway: TestGateway;
useMixedVendorGateway((started) => ({ openai, alpha, gateway } = started));

const HEADER = 'x-switchboard-dropped-fields';
const citation = { type: 'char_location', cited_text: 'The sky is blue.', document_index: 0, document_title: 'Sky facts', start_char_index: 0, end_char_index: 16 };
// Every field a translated vendor drops, some values a client would not want echoed (a token, a session tag).
const DROPPING = {
  diagnostics: { previous_message_id: 'msg_01PreviousDiagnostics' },
  context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
  fallback_credit_token: 'fct_01SecretCreditToken',
  metadata: { user_id: 'user-1', session_tag: 'tag-secret-42', 'weird key, with comma': 'x' },
  messages: [
    { role: 'user', content: 'What colour is the sky?' },
    { role: 'assistant', content: [{ type: 'text', text: 'Blue.', citations: [citation] }, { type: 'text', text: 'Mostly.', citations: [citation] }] },
    { role: 'user', content: 'Why?' },
  ],
};
const LISTED = 'context_management, diagnostics, fallback_credit_token, messages[].content[].citations, metadata.*, metadata.session_tag';

function body(model: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello there' }], ...fields };
}

describe('a translated vendor that drops fields', () => {
  it('names them in the JSON answer, its metadata and its generation record, paths only', async () => {
    openai.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, body('test/openai', DROPPING), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.headers.get(HEADER)).toBe(LISTED);
    expect(metadataOf(call).attempts).toEqual([expect.objectContaining({ provider: 'OpenAI', status: 'success', dropped_fields: LISTED.split(', ') })]);
    const record = await generationOf(gateway, call.headers.get('x-generation-id') ?? '');
    expect(record.attempts).toEqual([expect.objectContaining({ provider: 'OpenAI', status: 'success', dropped_fields: LISTED.split(', ') })]);
    expect(JSON.stringify(record.attempts)).not.toMatch(/fct_01|tag-secret|msg_01Previous/);
    expect(call.headers.get(HEADER)).not.toMatch(/fct_01|tag-secret|msg_01Previous/);
    const sent = openai.lastRequest().rawBody;
    expect(sent).not.toContain('fct_01SecretCreditToken');
    expect(sent).not.toContain('clear_thinking');
  });

  it('names them on a stream, with its first event', async () => {
    openai.enqueue(reply.fixture('openai-text'));
    const call = await streamMessage(gateway, body('test/openai', DROPPING));

    expect(call.status).toBe(200);
    expect(call.headers.get(HEADER)).toBe(LISTED);
    expect(call.events.map((event) => event.event)).toContain('message_stop');
    const record = await generationOf(gateway, call.headers.get('x-generation-id') ?? '');
    expect(record.attempts[0].dropped_fields).toEqual(LISTED.split(', '));
  });

  it('names one field once however often the conversation has it, and a hint of a tool', async () => {
    openai.enqueue(reply.fixture('openai-text'));
    const tool = { name: 'read', description: 'Reads a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } };
    const call = await postMessage(gateway, body('test/openai', { thinking: { type: 'enabled', budget_tokens: 1024, display: 'summarized' }, tools: [{ ...tool, defer_loading: true }, { ...tool, name: 'write', defer_loading: true }] }));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.headers.get(HEADER)).toBe('thinking.display, tools[].defer_loading');
  });
});

describe('an answer without the header', () => {
  it('from a translated vendor that dropped nothing (null fields ask for nothing)', async () => {
    openai.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, body('test/openai', { diagnostics: null, context_management: null, metadata: { user_id: 'user-1' } }));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.headers.has(HEADER)).toBe(false);
    const record = await generationOf(gateway, call.headers.get('x-generation-id') ?? '');
    expect(record.attempts[0]).not.toHaveProperty('dropped_fields');
  });

  it('from a translated vendor that dropped nothing, streamed', async () => {
    openai.enqueue(reply.fixture('openai-text'));
    const call = await streamMessage(gateway, body('test/openai'));

    expect(call.status).toBe(200);
    expect(call.headers.has(HEADER)).toBe(false);
  });

  it.each([false, true])('from an Anthropic-format upstream, which is sent every field (stream: %s)', async (stream) => {
    alpha.enqueue(reply.fixture('anthropic-text'));
    const request = body('test/anthropic', DROPPING);
    const call = stream ? await streamMessage(gateway, request) : await postMessage(gateway, request);

    expect(call.status).toBe(200);
    expect(call.headers.has(HEADER)).toBe(false);
    const record = await generationOf(gateway, call.headers.get('x-generation-id') ?? '');
    expect(record.attempts).toEqual([expect.not.objectContaining({ dropped_fields: expect.anything() })]);
    expect(alpha.lastRequest().body).toMatchObject({ diagnostics: DROPPING.diagnostics, context_management: DROPPING.context_management, fallback_credit_token: DROPPING.fallback_credit_token });
  });
});
