/**
 * The `web` and `web-fetch` plugins over HTTP: once per request, before the model is called, the gateway's
 * own web search (a fake SearXNG) or web fetch (a fake web site on 127.0.0.1, allow-listed) runs on the last
 * user turn, and what it found appears in the prompt the upstream (a fake OpenAI Chat Completions API)
 * receives, with the instruction to cite the sources.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { searxngAnswer, searxngResult, startFakeSearxng } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import { serve, startFakeWebServer, type FakeWebServer } from '#test/helpers/fake-tool-servers/fake-web-server.ts';
import type { ScriptedServer } from '#test/helpers/fake-tool-servers/scripted-json-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { WITH_METADATA, catalogYaml, errorMessage, metadataOf, postMessage } from '#test/integration/routing/routing-support.ts';

let chat: FakeUpstream;
let searxng: ScriptedServer;
let site: FakeWebServer;
let gateway: TestGateway;

beforeAll(async () => {
  [chat, searxng, site] = await Promise.all([
    startFakeOpenAiChat(),
    startFakeSearxng(),
    startFakeWebServer({ '/tides': serve('text/plain; charset=utf-8', 'Spring tides in the Bay of Fundy reach 16 metres.') }),
  ]);
  gateway = await startTestGateway({
    catalogYaml: [
      catalogYaml(
        [`  openai: { family: openai-chat, base_url: "${chat.baseURL}", api_key: "sk-openai-shared-0001" }`],
        ['  openai/chat:', '    context_length: 128000', '    capabilities: { tools: true, vision: false, pdf: false, thinking: false, caching: false, structured_output: false }', '    endpoints: [{ provider: openai, model: gpt-chat, pricing: { input: 1, output: 2 } }]'],
      ),
      'server_tools:',
      `  web_search: { backend: searxng, base_url: "${searxng.origin}", default_max_results: 2, max_results: 5 }`,
      '  web_fetch: { private_network_allowlist: [127.0.0.1] }',
      '',
    ].join('\n'),
  });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([chat?.close(), searxng?.close(), site?.close()]);
});
beforeEach(() => {
  chat.clear();
  searxng.requests.length = 0;
});

function body(text: string, plugins: unknown[]): Record<string, unknown> {
  return { model: 'openai/chat', max_tokens: 64, session_id: randomUUID(), messages: [{ role: 'user', content: text }], plugins };
}

/** The text of the last message the upstream received (OpenAI's `content`, a string or text parts). */
function lastPrompt(): string {
  const messages = (chat.lastRequest().body as { messages: { content: string | { type: string; text?: string }[] }[] }).messages;
  const content = messages.at(-1)?.content ?? '';
  return typeof content === 'string' ? content : content.map((part) => part.text ?? '').join('\n');
}

const RESULTS = [
  searxngResult({ url: 'https://tides.example.org/fundy', title: 'Bay of Fundy tides', content: 'The highest tides in the world, up to 16 m.' }),
  searxngResult({ url: 'https://en.example.net/wiki/Tide', title: 'Tide - Encyclopedia', content: 'Tides are the rise and fall of sea levels.' }),
  searxngResult({ url: 'https://third.example.com/', title: 'Third result', content: 'cut by max_results' }),
];

describe('the web plugin', () => {
  it('searches for the last user turn and puts the results, with citation instructions, in the prompt the upstream receives', async () => {
    searxng.enqueue(searxngAnswer('How high are the tides in the Bay of Fundy?', RESULTS));
    chat.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, body('How high are the tides in the Bay of Fundy?', [{ id: 'web' }]), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(searxng.requests[0]?.query.get('q')).toBe('How high are the tides in the Bay of Fundy?');
    const prompt = lastPrompt();
    expect(prompt).toMatch(/^How high are the tides in the Bay of Fundy\?\n/);
    expect(prompt).toMatch(/A web search was conducted on \d{4}-\d{2}-\d{2}\. Use the following results to answer, and cite the sources you use as markdown links to their URLs\./);
    expect(prompt).toContain('[1] Bay of Fundy tides\nURL: https://tides.example.org/fundy\nThe highest tides in the world, up to 16 m.');
    expect(prompt).toContain('[2] Tide - Encyclopedia\nURL: https://en.example.net/wiki/Tide');
    expect(prompt).not.toContain('Third result');
    expect(metadataOf(call) as unknown).toMatchObject({ plugins: [{ id: 'web', status: 'added', results: 2, query: 'How high are the tides in the Bay of Fundy?' }] });
  });

  it('takes max_results and search_prompt from the entry', async () => {
    searxng.enqueue(searxngAnswer('tides', RESULTS));
    chat.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, body('tides', [{ id: 'web', max_results: 3, search_prompt: 'Fresh results ({date}):' }]));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(lastPrompt()).toMatch(/Fresh results \(\d{4}-\d{2}-\d{2}\):\n\nSearch results for "tides":/);
    expect(lastPrompt()).toContain('[3] Third result');
  });

  it('serves the request without results when the search fails, and says so in the metadata', async () => {
    searxng.enqueue({ status: 502, body: 'Bad Gateway' });
    chat.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, body('tides', [{ id: 'web' }]), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(lastPrompt()).toBe('tides');
    expect(metadataOf(call) as unknown).toMatchObject({ plugins: [{ id: 'web', status: 'failed', results: 0 }] });
  });

  it('refuses max_results above the backend\'s ceiling', async () => {
    const call = await postMessage(gateway, body('tides', [{ id: 'web', max_results: 9 }]));

    expect(call.status).toBe(400);
    expect(errorMessage(call)).toBe('Invalid request parameters: plugins: web.max_results must be at most 5 on this gateway, got 9');
    expect(chat.requests).toHaveLength(0);
  });
});

describe('the web plugins in an agent\'s loop', () => {
  const question = 'How high are the tides in the Bay of Fundy?';
  const tools = [{ name: 'calculator', description: 'Adds numbers.', input_schema: { type: 'object', properties: { expression: { type: 'string' } } } }];
  const toolTurns = [
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'calculator', input: { expression: '16-2' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '14' }] },
  ];

  it('searches once per user prompt: a turn of tool results alone searches again for nothing', async () => {
    searxng.enqueue(searxngAnswer(question, RESULTS));
    chat.enqueue(reply.fixture('openai-text'), reply.fixture('openai-text'), reply.fixture('openai-text'));
    const plugins = [{ id: 'web' }];
    const first = await postMessage(gateway, { ...body(question, plugins), tools }, WITH_METADATA);
    const messages = [{ role: 'user', content: question }, ...toolTurns];
    const second = await postMessage(gateway, { ...body(question, plugins), tools, messages }, WITH_METADATA);
    const third = await postMessage(gateway, { ...body(question, plugins), tools, messages: [...messages, toolTurns[0], { ...toolTurns[1] }] }, WITH_METADATA);

    for (const call of [first, second, third]) expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(searxng.requests).toHaveLength(1);
    expect(metadataOf(second) as unknown).toMatchObject({ plugins: [{ id: 'web', status: 'skipped', results: 0 }] });
    expect(metadataOf(third) as unknown).toMatchObject({ plugins: [{ id: 'web', status: 'skipped', results: 0 }] });
    expect(JSON.stringify(chat.lastRequest().body)).not.toContain('A web search was conducted');
  });

  it('reads a Claude Code session\'s turns without their system reminders: searched for the user\'s words, a tool turn with reminders is no new prompt', async () => {
    searxng.enqueue(searxngAnswer(question, RESULTS));
    chat.enqueue(reply.fixture('openai-text'), reply.fixture('openai-text'));
    // Claude Code's shape: reminder text blocks before the user's words in the prompt turn, and after the
    // tool result in the turn that answers a tool call.
    const reminder = (note: string) => ({ type: 'text', text: `<system-reminder>\n${note}\n</system-reminder>` });
    const prompt = { role: 'user', content: [reminder(`As you answer the user's questions, you can use the following context:\n# claudeMd\nSee ${site.origin}/tides for the house style.`), { type: 'text', text: question }] };
    const toolTurn = { role: 'user', content: [toolTurns[1]?.content[0], reminder("The TodoWrite tool hasn't been used recently. Ignore if not applicable.")] };
    const first = await postMessage(gateway, { ...body(question, [{ id: 'web' }, { id: 'web-fetch' }]), tools, messages: [prompt] }, WITH_METADATA);
    const step = await postMessage(gateway, { ...body(question, [{ id: 'web' }, { id: 'web-fetch' }]), tools, messages: [prompt, toolTurns[0], toolTurn] }, WITH_METADATA);

    for (const call of [first, step]) expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(searxng.requests.map((request) => request.query.get('q'))).toEqual([question]);
    expect(metadataOf(first) as unknown).toMatchObject({ plugins: [{ id: 'web-fetch', status: 'skipped', urls: [] }, { id: 'web', status: 'added', query: question }] });
    expect(metadataOf(step) as unknown).toMatchObject({ plugins: [{ id: 'web-fetch', status: 'skipped' }, { id: 'web', status: 'skipped', results: 0 }] });
  });

  it('searches again for a new prompt after the loop, and fetches once per prompt too', async () => {
    searxng.enqueue(searxngAnswer('and in Maine?', RESULTS));
    chat.enqueue(reply.fixture('openai-text'), reply.fixture('openai-text'));
    const url = `${site.origin}/tides`;
    const messages = [{ role: 'user', content: `${question} See ${url}` }, ...toolTurns, { role: 'assistant', content: '14 m.' }, { role: 'user', content: 'and in Maine?' }];
    const next = await postMessage(gateway, { ...body(question, [{ id: 'web' }]), tools, messages }, WITH_METADATA);
    const fetchLoop = await postMessage(gateway, { ...body(question, [{ id: 'web-fetch' }]), tools, messages: messages.slice(0, 3) }, WITH_METADATA);

    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(searxng.requests.map((request) => request.query.get('q'))).toEqual(['and in Maine?']);
    expect(metadataOf(next) as unknown).toMatchObject({ plugins: [{ id: 'web', status: 'added', query: 'and in Maine?' }] });
    expect(fetchLoop.status, JSON.stringify(fetchLoop.body)).toBe(200);
    expect(metadataOf(fetchLoop) as unknown).toMatchObject({ plugins: [{ id: 'web-fetch', status: 'skipped', results: 0, urls: [] }] });
  });
});

describe('the web-fetch plugin', () => {
  it('fetches the URLs in the last user turn and puts each page in the prompt the upstream receives', async () => {
    chat.enqueue(reply.fixture('openai-text'));
    const url = `${site.origin}/tides`;
    const call = await postMessage(gateway, body(`Summarise ${url}.`, [{ id: 'web-fetch' }]), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const prompt = lastPrompt();
    expect(prompt).toMatch(/The following web pages were fetched on \d{4}-\d{2}-\d{2}\. Use them to answer, and cite the pages you use as markdown links to their URLs\./);
    expect(prompt).toContain(`URL: ${url}\n\nSpring tides in the Bay of Fundy reach 16 metres.`);
    expect(metadataOf(call) as unknown).toMatchObject({ plugins: [{ id: 'web-fetch', status: 'added', results: 1, urls: [url] }] });
  });

  it('names a page it could not fetch, with the reason, and runs before web in one request', async () => {
    searxng.enqueue(searxngAnswer('q', RESULTS));
    chat.enqueue(reply.fixture('openai-text'));
    const missing = `${site.origin}/missing`;
    const call = await postMessage(gateway, body(`What is on ${missing}?`, [{ id: 'web' }, { id: 'web-fetch' }]), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(lastPrompt()).toMatch(new RegExp(`URL: ${missing.replaceAll('/', '\\/')}\\nError \\(`));
    // The search is for what the client wrote, not for the fetched page added before it.
    expect(searxng.requests[0]?.query.get('q')).toBe(`What is on ${missing}?`);
    expect((metadataOf(call) as unknown as { plugins: { id: string }[] }).plugins.map((report) => report.id)).toEqual(['web-fetch', 'web']);
  });
});
