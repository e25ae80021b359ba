/**
 * Over HTTP: a client sends back, on a later turn, the content it got from a tool-loop answer (the gateway's
 * `server_tool_use` and result blocks, made by a real loop first). Every provider family accepts it. Without
 * gateway tools in the new request, the gateway blocks reach each vendor as text where they stood (no upstream
 * can read them raw: Anthropic knows no `datetime_tool_result`, and tool turns would need the tools offered),
 * while Anthropic's own server tool blocks pass through untouched; with gateway tools, they are again the tool
 * call and tool result the model saw, in each vendor's own shape (as text for a tool the request does not
 * offer). count_tokens counts what would be sent.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep, bedrockStep, geminiStep, openAiChatStep, type EitherReply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { searxngAnswer, searxngResult } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import { postMessage } from '#test/integration/routing/routing-support.ts';
import { bodyOf, loopBody, messagesOf, useLoopGateway } from './loop-support.ts';

const setup = useLoopGateway();
const ALPHA = { provider: { order: ['alpha'] } };
const QUESTION = { role: 'user', content: 'What time is it in Paris, and what is the weather?' };
const ANTHROPIC_USE = { type: 'server_tool_use', id: 'srvtoolu_01AnthropicOwn', name: 'web_search', input: { query: 'paris' } };
const ANTHROPIC_RESULT = { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_01AnthropicOwn', content: [] };

/** The content of a real tool-loop answer: a datetime call and a web search, then the model's text. */
let answer: { type: string; id?: string }[];

beforeAll(async () => {
  setup.searxng.enqueue(searxngAnswer('paris weather', [searxngResult({ url: 'https://meteo.example.org/paris', title: 'Paris forecast', content: 'Sunny, 18 C.' })]));
  setup.alpha.enqueue(
    anthropicStep({ text: 'Let me check.', calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }, { name: 'web_search', input: { query: 'paris weather' } }], usage: { input: 50, output: 9 } }),
    anthropicStep({ text: 'It is noon and sunny.', usage: { input: 90, output: 6 } }),
  );
  const call = await postMessage(setup.gateway, loopBody('test/claude', [{ type: 'gateway:datetime' }, { type: 'gateway:web_search' }], { ...ALPHA, messages: [QUESTION] }));
  expect(call.status, JSON.stringify(call.body)).toBe(200);
  answer = call.body.content as { type: string; id?: string }[];
  expect(answer.map((block) => block.type)).toEqual(['text', 'server_tool_use', 'server_tool_use', 'datetime_tool_result', 'web_search_tool_result', 'text']);
});

/** The follow-up turn: the answer passed back unchanged, then the user's next words. */
function followUp(model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const messages = [QUESTION, { role: 'assistant', content: answer }, { role: 'user', content: 'And tomorrow?' }];
  return { model, max_tokens: 64, messages, ...extra };
}

interface Family {
  name: string;
  model: string;
  upstream: () => FakeUpstream;
  step: (text: string) => EitherReply;
  /** Everything the upstream received of the passed-back assistant turn(s), as one string. */
  sent: (body: Record<string, unknown>) => string;
}

const FAMILIES: Family[] = [
  { name: 'Anthropic', model: 'test/claude', upstream: () => setup.alpha, step: (text) => anthropicStep({ text, usage: { input: 10, output: 2 } }), sent: (body) => JSON.stringify(body.messages) },
  { name: 'OpenAI Chat', model: 'test/gpt', upstream: () => setup.openai, step: (text) => openAiChatStep({ text, usage: { input: 10, output: 2 } }), sent: (body) => JSON.stringify(body.messages) },
  { name: 'Gemini', model: 'test/gemini', upstream: () => setup.gemini, step: (text) => geminiStep({ text, usage: { input: 10, output: 2 } }), sent: (body) => JSON.stringify(body.contents) },
  { name: 'Bedrock', model: 'test/bedrock', upstream: () => setup.bedrock, step: (text) => bedrockStep({ text, usage: { input: 10, output: 2 } }), sent: (body) => JSON.stringify(body.messages) },
];

describe.each(FAMILIES)('without gateway tools, on $name', (family) => {
  it('the gateway blocks arrive as text where they stood, and the answer is served', async () => {
    family.upstream().enqueue(family.step('Tomorrow too.'));
    const call = await postMessage(setup.gateway, followUp(family.model, family.name === 'Anthropic' ? ALPHA : {}));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const sent = family.sent(bodyOf(family.upstream().lastRequest()));
    const [, clockUse, searchUse] = answer;
    expect(sent).toContain(`[Tool call ${clockUse?.id}: datetime({\\"timezone\\":\\"Europe/Paris\\"})]`);
    expect(sent).toContain(`[Tool call ${searchUse?.id}: web_search({\\"query\\":\\"paris weather\\"})]`);
    expect(sent).toContain(`[Tool result ${clockUse?.id}]`);
    expect(sent).toContain('Europe/Paris');
    expect(sent).toContain('Search results for \\"paris weather\\"');
    expect(sent).toContain('Sunny, 18 C.');
    expect(sent).toContain('It is noon and sunny.');
    // No block of the gateway's types, and its ids only inside the text.
    expect(sent).not.toMatch(/server_tool_use|_tool_result|\\?"srvtoolu_gw_/);
  });
});

describe('without gateway tools, on Anthropic', () => {
  it('Anthropic\'s own server tool blocks pass through untouched next to the converted ones', async () => {
    setup.alpha.enqueue(anthropicStep({ text: 'Fine.', usage: { input: 10, output: 2 } }));
    const body = followUp('test/claude', ALPHA);
    (body.messages as { role: string; content: unknown }[])[1] = { role: 'assistant', content: [...answer, ANTHROPIC_USE, ANTHROPIC_RESULT] };
    const call = await postMessage(setup.gateway, body);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const assistant = messagesOf(setup.alpha.lastRequest())[1]?.content as { type: string }[];
    expect(assistant.map((block) => block.type)).toEqual(['text', 'text', 'text', 'text', 'text', 'text', 'server_tool_use', 'web_search_tool_result']);
    expect(assistant.slice(-2)).toEqual([ANTHROPIC_USE, ANTHROPIC_RESULT]);
  });

  it('count_tokens counts the text the message would send', async () => {
    const response = await fetch(`${setup.gateway.baseUrl}/messages/count_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${setup.gateway.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...followUp('test/claude', ALPHA), max_tokens: undefined }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const sent = JSON.stringify(bodyOf(setup.alpha.lastRequest()).messages);
    expect(setup.alpha.lastRequest()?.path).toContain('count_tokens');
    expect(sent).toContain(`[Tool call ${answer[1]?.id}: datetime(`);
    expect(sent).not.toContain('datetime_tool_result');
  });
});

describe.each(FAMILIES)('with gateway tools, on $name', (family) => {
  const options = (tools: unknown[]) => ({ tools, ...(family.name === 'Anthropic' ? ALPHA : {}) });

  it('the gateway blocks are again the tool calls and the tool results the model saw', async () => {
    family.upstream().enqueue(family.step('Tomorrow too.'));
    const call = await postMessage(setup.gateway, followUp(family.model, options([{ type: 'gateway:datetime' }, { type: 'gateway:web_search' }])));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const sent = family.sent(bodyOf(family.upstream().lastRequest()));
    expect(sent).toContain(String(answer[1]?.id));
    expect(sent).toContain(String(answer[2]?.id));
    expect(sent).not.toContain('[Tool call');
    expect(sent).not.toMatch(/server_tool_use|datetime_tool_result|web_search_tool_result/);
    expect(sent).toContain('Sunny, 18 C.');
  });

  it('a call of a gateway tool this request does not offer is text, with its result', async () => {
    family.upstream().enqueue(family.step('Tomorrow too.'));
    const call = await postMessage(setup.gateway, followUp(family.model, options([{ type: 'gateway:datetime' }])));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const sent = family.sent(bodyOf(family.upstream().lastRequest()));
    const [, clockUse, searchUse] = answer;
    expect(sent).toContain(`[Tool call ${searchUse?.id}: web_search(`);
    expect(sent).toContain(`[Tool result ${searchUse?.id}]`);
    expect(sent).not.toContain(`[Tool call ${clockUse?.id}`);
    expect(sent).toContain(String(clockUse?.id));
    expect(sent).toContain('Sunny, 18 C.');
  });
});
