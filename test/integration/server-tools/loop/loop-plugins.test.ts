/**
 * Over HTTP, plugins on a request that also names gateway tools (the tool loop): the plugins that change the
 * request run once, before the loop (moderation screens once, `web` searches once and every step's prompt
 * carries the results, `file-parser` reads the PDF once and every step gets it as text, or natively on an
 * endpoint that reads PDFs; a flagged input runs no step and no tool); `context-compression` is decided per step
 * and per attempt (a step on a small endpoint is compressed with the loop's own tool turns kept whole, a
 * fallback with a larger context gets the whole conversation); `response-healing` heals the final text only,
 * not what the model said before calling a tool, in JSON and in a stream.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicStep, moderationAnswer, moderationResult, reply, startFakeAnthropic, startFakeOpenAiModerations, type FakeUpstream, type RecordedRequest } from '#test/helpers/fake-upstreams/index.ts';
import { searxngAnswer, searxngResult, startFakeSearxng } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import { makePdf } from '#test/helpers/fake-tool-servers/make-pdf.ts';
import type { ScriptedServer } from '#test/helpers/fake-tool-servers/scripted-json-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { WITH_METADATA, anthropicProviderYaml, catalogYaml, metadataOf, postMessage, streamMessage, type MessageCall } from '#test/integration/routing/routing-support.ts';
import { messagesOf } from './loop-support.ts';

const DATETIME = { type: 'gateway:datetime' };
const SCHEMA = { type: 'object', properties: { time: { type: 'string' } }, required: ['time'], additionalProperties: false };

let small: FakeUpstream;
let large: FakeUpstream;
let moderations: FakeUpstream;
let searxng: ScriptedServer;
let gateway: TestGateway;

function model(slug: string, provider: string, contextLength: number): string {
  return [
    `  ${slug}:`,
    `    context_length: ${contextLength}`,
    '    capabilities: { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true }',
    `    endpoints: [{ provider: ${provider}, model: ${slug.split('/')[1]}, pricing: { input: 1, output: 2 } }]`,
  ].join('\n');
}

beforeAll(async () => {
  [small, large, moderations, searxng] = await Promise.all([startFakeAnthropic(), startFakeAnthropic(), startFakeOpenAiModerations(), startFakeSearxng()]);
  const providers = [anthropicProviderYaml('alpha', small), anthropicProviderYaml('beta', large), `  moderator: { family: openai-chat, base_url: "${moderations.baseURL}", api_key: "sk-moderator-loop-0001" }`];
  gateway = await startTestGateway({
    catalogYaml: [
      catalogYaml(providers, [model('test/small', 'alpha', 600), model('test/large', 'beta', 200_000)]),
      'server_tools:',
      `  web_search: { backend: searxng, base_url: "${searxng.origin}" }`,
      'plugins:',
      '  moderation: { engine: openai, provider: moderator, model: omni-moderation-latest, timeout_ms: 3000 }',
      '',
    ].join('\n'),
  });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([small?.close(), large?.close(), moderations?.close(), searxng?.close()]);
});
beforeEach(() => {
  for (const upstream of [small, large, moderations]) upstream.clear();
  searxng.requests.length = 0;
});

// A session per request, so that no sticky pin from an earlier test reorders the plan.
function body(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'test/large', max_tokens: 100, session_id: randomUUID(), messages: [{ role: 'user', content: 'What time is it?' }], tools: [DATETIME], ...extra };
}

function reportsOf(call: MessageCall): unknown[] {
  return (metadataOf(call) as unknown as { plugins?: unknown[] }).plugins ?? [];
}

function textOf(request: RecordedRequest | undefined, message: number): string {
  const content = messagesOf(request)[message]?.content;
  return typeof content === 'string' ? content : (content as { text?: string }[]).map((block) => block.text ?? '').join('\n');
}

describe('plugins that change the request run once, before the loop', () => {
  it('moderation screens once and web searches once; every step sends the results', async () => {
    moderations.enqueue(moderationAnswer([moderationResult()]));
    searxng.enqueue(searxngAnswer('What time is it?', [searxngResult({ url: 'https://clock.example.org/', title: 'World clock', content: 'Paris is on CET.' })]));
    large.enqueue(
      anthropicStep({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input: 50, output: 5 } }),
      anthropicStep({ text: 'It is noon in Paris.', usage: { input: 90, output: 6 } }),
    );
    const call = await postMessage(gateway, body({ plugins: [{ id: 'moderation' }, { id: 'web' }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect((call.body.content as { type: string }[]).map((block) => block.type)).toEqual(['server_tool_use', 'datetime_tool_result', 'text']);
    expect(moderations.requests).toHaveLength(1);
    expect(searxng.requests).toHaveLength(1);
    expect(large.requests).toHaveLength(2);
    for (const request of large.requests) expect(textOf(request, 0)).toContain('[1] World clock\nURL: https://clock.example.org/\nParis is on CET.');
    expect(messagesOf(large.requests[1]).map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(reportsOf(call)).toMatchObject([
      { id: 'moderation', status: 'passed' },
      { id: 'web', status: 'added', results: 1 },
    ]);
  });

  it.each([
    ['pdf-text', 'text', 'text/plain'],
    ['native', 'base64', 'application/pdf'],
  ])('file-parser reads the PDF once; engine %s: every step sends it as %s', async (engine, sourceType, mediaType) => {
    const pdf = Buffer.from(await makePdf({ title: 'Invoice 117', pages: [['Invoice 2026-117', 'Total due: 1,234.56 EUR']] })).toString('base64');
    large.enqueue(
      anthropicStep({ calls: [{ name: 'datetime', input: {} }], usage: { input: 50, output: 5 } }),
      anthropicStep({ text: 'Due in 30 days from today.', usage: { input: 90, output: 6 } }),
    );
    const question = { role: 'user', content: [{ type: 'document', title: 'invoice.pdf', source: { type: 'base64', media_type: 'application/pdf', data: pdf } }, { type: 'text', text: 'When is it due?' }] };
    const call = await postMessage(gateway, body({ messages: [question], plugins: [{ id: 'file-parser', pdf: { engine } }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(large.requests).toHaveLength(2);
    for (const request of large.requests) {
      const [document] = messagesOf(request)[0]?.content as { type: string; source: { type: string; media_type: string; data: string } }[];
      expect(document?.source).toMatchObject({ type: sourceType, media_type: mediaType });
      if (sourceType === 'text') expect(document?.source.data).toContain('Total due: 1,234.56 EUR');
    }
    expect(reportsOf(call)).toEqual([{ id: 'file-parser', engine, documents_as_text: engine === 'native' ? 0 : 1, documents_native: engine === 'native' ? 1 : 0 }]);
  });

  it.each([false, true])('a flagged input is a refusal: no step, no tool (stream: %s)', async (stream) => {
    moderations.enqueue(moderationAnswer([moderationResult({ violence: 0.9 })]));
    const request = body({ plugins: [{ id: 'moderation' }], messages: [{ role: 'user', content: 'I will hurt you. What time is it?' }] });
    if (stream) {
      const call = await streamMessage(gateway, request);
      expect(call.status).toBe(200);
      const delta = call.events.find((event) => event.event === 'message_delta');
      expect(JSON.parse(delta?.data ?? '{}')).toMatchObject({ delta: { stop_reason: 'refusal' } });
    } else {
      const call = await postMessage(gateway, request);
      expect(call.status, JSON.stringify(call.body)).toBe(200);
      expect(call.body).toMatchObject({ content: [], stop_reason: 'refusal', stop_details: { category: 'violence' } });
    }
    expect(large.requests).toHaveLength(0);
    expect(small.requests).toHaveLength(0);
  });
});

/** Ten turns of 100 tokens each by the gateway's estimate (400 characters), labelled by their first word. */
const pad = (label: string) => `${label} ${'.'.repeat(399 - label.length)}`;
const CONVERSATION = ['u0', 'a1', 'u2', 'a3', 'u4', 'a5', 'u6', 'a7', 'u8'].map((label) => ({ role: label.startsWith('u') ? 'user' : 'assistant', content: pad(label) }));

function labels(request: RecordedRequest | undefined): string[] {
  return messagesOf(request).map((message) => {
    if (typeof message.content === 'string') return message.content.split(' ')[0] as string;
    const [block] = message.content as { type: string; name?: string }[];
    return block?.type ?? '?';
  });
}

describe('context-compression is decided per step and per attempt', () => {
  it('compresses each step for the small endpoint, keeping the loop\'s tool turns whole', async () => {
    small.enqueue(
      anthropicStep({ calls: [{ name: 'datetime', input: {} }], usage: { input: 400, output: 5 } }),
      anthropicStep({ text: 'It is noon.', usage: { input: 450, output: 5 } }),
    );
    const call = await postMessage(gateway, body({ model: 'test/small', messages: CONVERSATION, plugins: [{ id: 'context-compression' }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const [first, second] = small.requests;
    // The offered tool counts too: u0 and the most recent turns stay, the middle goes.
    expect(labels(first)).toEqual(['u0', 'a7', 'u8']);
    // The step's own tool call and result are the most recent turns: kept, together; older turns went instead.
    const kept = labels(second);
    expect(kept[0]).toBe('u0');
    expect(kept.slice(-3)).toEqual(['u8', 'tool_use', 'tool_result']);
    expect(kept.length).toBeLessThan(CONVERSATION.length + 2);
    const removed = CONVERSATION.length + 2 - kept.length;
    expect(reportsOf(call)).toEqual([{ id: 'context-compression', messages_removed: removed, context_length: 600, estimated_input_tokens: expect.any(Number) }]);
  });

  it.each([false, true])('gives a fallback with a larger context the whole conversation, the loop\'s turns included (stream: %s)', async (stream) => {
    small.enqueue(anthropicStep({ calls: [{ name: 'datetime', input: {} }], usage: { input: 400, output: 5 } }), reply.error(529));
    large.enqueue(anthropicStep({ text: 'It is noon.', usage: { input: 950, output: 5 } }));
    const request = body({ model: 'test/small', fallbacks: [{ model: 'test/large' }], messages: CONVERSATION, plugins: [{ id: 'context-compression' }] });
    let reports: unknown[];
    if (stream) {
      const call = await streamMessage(gateway, request, WITH_METADATA);
      expect(call.status).toBe(200);
      const stop = JSON.parse(call.events.at(-1)?.data ?? '{}') as { type: string; gateway_metadata?: { plugins?: unknown[] } };
      expect(stop.type).toBe('message_stop');
      reports = stop.gateway_metadata?.plugins ?? [];
    } else {
      const call = await postMessage(gateway, request, WITH_METADATA);
      expect(call.status, JSON.stringify(call.body)).toBe(200);
      reports = reportsOf(call);
    }
    expect(labels(small.requests[0])).toEqual(['u0', 'a7', 'u8']);
    expect(labels(large.lastRequest())).toEqual([...CONVERSATION.map((message) => message.content.split(' ')[0]), 'tool_use', 'tool_result']);
    // Reported for the attempt that served the last step.
    expect(reports).toEqual([{ id: 'context-compression', messages_removed: 0, context_length: 200_000, estimated_input_tokens: expect.any(Number) }]);
  });
});

describe('response-healing heals the final text only', () => {
  const structured = () => body({ output_config: { format: { type: 'json_schema', schema: SCHEMA } }, plugins: [{ id: 'response-healing' }] });
  const steps = () =>
    large.enqueue(
      anthropicStep({ text: 'Let me look at the clock.', calls: [{ name: 'datetime', input: {} }], usage: { input: 50, output: 9 } }),
      anthropicStep({ text: "{'time': 'noon',}", usage: { input: 90, output: 6 } }),
    );

  it('in JSON: the words before the tool call are kept as they came, the last step\'s text is healed', async () => {
    steps();
    const call = await postMessage(gateway, structured(), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const content = call.body.content as { type: string; text?: string }[];
    expect(content.map((block) => block.type)).toEqual(['text', 'server_tool_use', 'datetime_tool_result', 'text']);
    expect(content[0]?.text).toBe('Let me look at the clock.');
    expect(JSON.parse(content[3]?.text ?? '')).toEqual({ time: 'noon' });
    expect(reportsOf(call)).toEqual([{ id: 'response-healing', status: 'healed' }]);
    // The structured output is asked for on every step.
    for (const request of large.requests) expect((request.body as { output_config?: unknown }).output_config).toEqual({ format: { type: 'json_schema', schema: SCHEMA } });
  });

  it('with the gateway\'s web search on an Anthropic-format upstream, the results go as text: Anthropic takes no citations with structured output', async () => {
    searxng.enqueue(searxngAnswer('time now', [searxngResult({ url: 'https://clock.example.org/', title: 'World clock', content: 'Noon in Paris.' })]));
    large.enqueue(
      anthropicStep({ calls: [{ name: 'web_search', input: { query: 'time now' } }], usage: { input: 50, output: 9 } }),
      anthropicStep({ text: '{"time": "noon"}', usage: { input: 90, output: 6 } }),
    );
    const call = await postMessage(gateway, { ...structured(), tools: [{ type: 'gateway:web_search' }] }, WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const [result] = messagesOf(large.requests[1])[2]?.content as { type: string; content: unknown }[];
    expect(result?.type).toBe('tool_result');
    expect(result?.content).toEqual(expect.stringContaining('[1] World clock\nURL: https://clock.example.org/\nNoon in Paris.'));
    expect(JSON.stringify(large.requests[1]?.body)).not.toContain('search_result');
    expect(reportsOf(call)).toEqual([{ id: 'response-healing', status: 'valid' }]);
  });

  it('in a stream: the first text streams as it came, the final one arrives healed in one delta', async () => {
    steps();
    const call = await streamMessage(gateway, structured(), WITH_METADATA);

    expect(call.status).toBe(200);
    const payloads = call.events.filter((event) => event.event !== 'ping').map((event) => JSON.parse(event.data) as Record<string, unknown>);
    // The fake upstream sends each text in two halves.
    const texts = payloads.filter((payload) => payload.type === 'content_block_delta' && (payload.delta as { type: string }).type === 'text_delta');
    expect(texts.map((payload) => [payload.index, (payload.delta as { text: string }).text])).toEqual([
      [0, 'Let me look a'],
      [0, 't the clock.'],
      [3, '{"time": "noon"}'],
    ]);
    const stop = payloads.at(-1) as { type: string; gateway_metadata?: { plugins?: unknown[] } };
    expect(stop.type).toBe('message_stop');
    expect(stop.gateway_metadata?.plugins).toEqual([{ id: 'response-healing', status: 'healed' }]);
  });
});
