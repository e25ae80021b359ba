/**
 * What the `moderation` plugin screens, over HTTP: every text the model will read that is not the model's
 * own. A fake of OpenAI's moderation endpoint flags any input holding a marker word, and the marker is put in
 * one place at a time (the system prompt, a system message, a text block, a tool result's string or nested
 * content, a document's plain-text or content-block source, a search result, in a user turn or a tool
 * result): each is answered with the refusal and no model is called.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, type FakeUpstream, type RecordedRequest } from '#test/helpers/fake-upstreams/index.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { postMessage } from '#test/integration/routing/routing-support.ts';
import { inputsOf, MARKER, markerResults, startOpenAiModerationGateway } from './moderation-support.ts';

let moderations: FakeUpstream;
let model: FakeUpstream;
let gateway: TestGateway;

/** One result per input, flagged (violence) when the input holds the marker: a classifier that reads what it is given. */
function flagMarker(request: RecordedRequest) {
  return { status: 200, body: { id: 'modr-marker', model: 'omni-moderation-latest', results: markerResults(inputsOf(request)) } };
}

beforeAll(async () => {
  ({ moderations, model, gateway } = await startOpenAiModerationGateway(flagMarker));
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([moderations?.close(), model?.close()]);
});
beforeEach(() => {
  moderations.clear();
  model.clear();
});

const TOOL_USE = { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'lookup', input: { q: 'x' } }] };
const TOOLS = [{ name: 'lookup', description: 'Looks things up.', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }];

function toolResult(content: unknown): Record<string, unknown>[] {
  return [{ role: 'user', content: 'Look it up.' }, TOOL_USE, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content }] }];
}

function searchResult(text: string) {
  return { type: 'search_result', source: 'https://docs.example/page', title: 'A page', content: [{ type: 'text', text }] };
}

const bad = `Here is how: ${MARKER}.`;

const cases: [string, Record<string, unknown>][] = [
  ['the system prompt', { system: bad, messages: [{ role: 'user', content: 'Hello' }] }],
  ['system text blocks', { system: [{ type: 'text', text: bad }], messages: [{ role: 'user', content: 'Hello' }] }],
  ['a system message in the conversation', { messages: [{ role: 'user', content: 'Hello' }, { role: 'assistant', content: 'Hi' }, { role: 'system', content: bad }, { role: 'user', content: 'Go on' }] }],
  ['a text block', { messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }, { type: 'text', text: bad }] }] }],
  ['a tool result\'s string content', { tools: TOOLS, messages: toolResult(bad) }],
  ['a tool result\'s text block', { tools: TOOLS, messages: toolResult([{ type: 'text', text: bad }]) }],
  ['a search result in a tool result', { tools: TOOLS, messages: toolResult([searchResult(bad)]) }],
  ['a document with a plain-text source', { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: bad } }, { type: 'text', text: 'Summarise.' }] }] }],
  ['a document with a content-block source', { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'content', content: [{ type: 'text', text: bad }] } }, { type: 'text', text: 'Summarise.' }] }] }],
  ['a document\'s context', { messages: [{ role: 'user', content: [{ type: 'document', context: bad, source: { type: 'text', media_type: 'text/plain', data: 'Plain.' } }, { type: 'text', text: 'Summarise.' }] }] }],
  ['a message of a role the gateway does not know', { messages: [{ role: 'user', content: 'Hello' }, { role: 'developer', content: bad }, { role: 'user', content: 'Go on' }] }],
  ['a text block of a role the gateway does not know', { messages: [{ role: 'user', content: 'Hello' }, { role: 'developer', content: [{ type: 'text', text: bad }] }, { role: 'user', content: 'Go on' }] }],
  ['a search result in a user turn', { messages: [{ role: 'user', content: [searchResult(bad), { type: 'text', text: 'Summarise.' }] }] }],
];

describe('the moderation plugin screens every text the model reads', () => {
  it.each(cases)('refuses the marker in %s, calling no model', async (_where, fields) => {
    const call = await postMessage(gateway, { model: 'test/chat', max_tokens: 64, session_id: randomUUID(), plugins: [{ id: 'moderation' }], ...fields });

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body).toMatchObject({ content: [], stop_reason: 'refusal', stop_details: { category: 'violence' } });
    expect(moderations.requests).toHaveLength(1);
    expect(model.requests).toHaveLength(0);
  });

  it('serves the same shapes without the marker', async () => {
    model.enqueue(reply.fixture('anthropic-text'));
    // Texts passed by an earlier test are not screened again: this request's are new.
    const prompt = [{ role: 'user', content: 'Look it up, please.' }, TOOL_USE, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [searchResult('Bread needs flour.')] }] }];
    const call = await postMessage(gateway, { model: 'test/chat', max_tokens: 64, tools: TOOLS, plugins: [{ id: 'moderation' }], system: 'Be brief and kind.', messages: prompt });

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(call.body.stop_reason).toBe('end_turn');
    expect((moderations.lastRequest().body as { input: string[] }).input).toEqual(['Be brief and kind.', 'Look it up, please.', 'A page\n\nBread needs flour.']);
    expect(model.requests).toHaveLength(1);
  });
});
