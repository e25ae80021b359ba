/**
 * The `user_location` of Anthropic's web search run by the gateway on Brave Search, over HTTP with the
 * Anthropic SDK against a translated model (OpenAI Chat Completions): Brave receives the country and its
 * search language as query parameters and the location as its `X-Loc-*` headers; a country Brave does not
 * list travels only as the header, and a name that is not plain ASCII is left out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAiChatStep, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { braveAnswer, braveResult, startFakeBrave } from '#test/helpers/fake-tool-servers/fake-brave.ts';
import type { ScriptedServer } from '#test/helpers/fake-tool-servers/scripted-json-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { loopBody, runLoop } from './loop-support.ts';

let openai: FakeUpstream;
let brave: ScriptedServer;
let gateway: TestGateway;

beforeAll(async () => {
  [openai, brave] = await Promise.all([startFakeOpenAiChat(), startFakeBrave()]);
  const providers = [`  openai: { base_url: "${openai.baseURL}", api_key: "sk-openai-brave-0001", family: openai-chat }`];
  const catalog = catalogYaml(providers, [modelYaml('test/gpt', [{ provider: 'openai', model: 'gpt-loop', price: [1, 4] }])]);
  const tools = ['server_tools:', `  web_search: { backend: brave, base_url: "${brave.origin}", api_key: "BSAlocationkey0123456" }`].join('\n');
  gateway = await startTestGateway({ catalogYaml: `${catalog}${tools}\n` });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([openai?.close(), brave?.close()]);
});

async function searchOnce(userLocation: Record<string, unknown>) {
  openai.clear();
  brave.requests.length = 0;
  brave.enqueue(braveAnswer('weather', [braveResult({ url: 'https://weather.example.org/today', title: 'Weather', description: 'Mild.' })]));
  openai.enqueue(
    openAiChatStep({ calls: [{ name: 'web_search', input: { query: 'weather' } }], usage: { input: 20, output: 5 } }),
    openAiChatStep({ text: 'Mild.', usage: { input: 80, output: 3 } }),
  );
  const tool = { type: 'web_search_20250305', name: 'web_search', user_location: { type: 'approximate', ...userLocation } };
  const { message } = await runLoop(gateway, loopBody('test/gpt', [tool]), false);
  expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
  expect(brave.requests).toHaveLength(1);
  return brave.requests[0]!;
}

describe('web_search_20250305 user_location on Brave Search', () => {
  it('sends country and search_lang, and the location headers', async () => {
    const request = await searchOnce({ city: 'Sao Paulo', region: 'Sao Paulo', country: 'br', timezone: 'America/Sao_Paulo' });
    expect(Object.fromEntries(request.query)).toEqual({ q: 'weather', count: '5', country: 'BR', search_lang: 'pt-br' });
    expect(request.headers).toMatchObject({ 'x-loc-country': 'BR', 'x-loc-city': 'Sao Paulo', 'x-loc-state-name': 'Sao Paulo', 'x-loc-timezone': 'America/Sao_Paulo' });
  });

  it('a country Brave does not list goes only as X-Loc-Country; a name outside ASCII is left out', async () => {
    const request = await searchOnce({ city: 'Reykjavík', country: 'IS', timezone: 'Atlantic/Reykjavik' });
    expect(Object.fromEntries(request.query)).toEqual({ q: 'weather', count: '5', search_lang: 'is' });
    expect(request.headers).toMatchObject({ 'x-loc-country': 'IS', 'x-loc-timezone': 'Atlantic/Reykjavik' });
    expect(request.headers['x-loc-city']).toBeUndefined();
  });
});
