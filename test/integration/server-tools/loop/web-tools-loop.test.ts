/**
 * End to end over HTTP with the Anthropic SDK as the client: `gateway:web_search` through fake SearXNG and
 * Brave servers (Anthropic-format upstream: results as `search_result` blocks, the answer's citations as
 * `web_search_result_location`), `gateway:web_fetch` of an allowlisted page on 127.0.0.1, and the SSRF guard
 * seen end to end: a refused address is an error result the model reads, nothing is connected, and the answer
 * is still a 200.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TextBlock } from '@anthropic-ai/sdk/resources/messages';
import { anthropicStep, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { braveAnswer, braveResult, startFakeBrave } from '#test/helpers/fake-tool-servers/fake-brave.ts';
import { searxngAnswer, searxngResult } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import { serve, startFakeWebServer, type FakeWebServer } from '#test/helpers/fake-tool-servers/fake-web-server.ts';
import type { ScriptedServer } from '#test/helpers/fake-tool-servers/scripted-json-server.ts';
import { expectSpecBlock } from '#test/helpers/spec-blocks.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { askingToRead, loopBody, messagesOf, runLoop, useLoopGateway } from './loop-support.ts';

const ARTICLE = '<html><head><title>Tides of Fundy</title></head><body><article><h1>Tides of Fundy</h1><p>The Bay of Fundy has the highest tides in the world, up to sixteen metres between low and high water.</p><p>Twice a day, one hundred billion tonnes of seawater flow in and out of the bay.</p></article></body></html>';
const setup = useLoopGateway({ webRoutes: { '/fundy': serve('text/html; charset=utf-8', ARTICLE) } });
const ALPHA = { provider: { order: ['alpha'] } };
const FORECAST = 'https://meteo.example.org/paris';

function citation(cited: string) {
  return { type: 'search_result_location', source: FORECAST, title: 'Paris forecast', cited_text: cited, search_result_index: 0, start_block_index: 0, end_block_index: 0 };
}

describe.each([false, true])('gateway:web_search through SearXNG on an Anthropic-format upstream (stream: %s)', (stream) => {
  it('the model reads search_result blocks; the client reads web_search_tool_result and web_search_result_location citations', async () => {
    setup.searxng.enqueue(searxngAnswer('paris weather', [searxngResult({ url: FORECAST, title: 'Paris forecast', content: 'Sunny, 18 C this afternoon.' })]));
    setup.alpha.enqueue(
      anthropicStep({ calls: [{ name: 'web_search', input: { query: 'paris weather' } }], usage: { input: 50, output: 10 } }),
      anthropicStep({ text: 'Sunny and 18 C.', citations: [citation('Sunny, 18 C this afternoon.')], usage: { input: 400, output: 20 } }),
    );
    const { message, usage } = await runLoop(setup.gateway, loopBody('test/claude', [{ type: 'gateway:web_search' }], ALPHA), stream);
    for (const block of message.content) expectSpecBlock(block);
    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
    expect(message.content[1]).toMatchObject({ content: [{ type: 'web_search_result', url: FORECAST, title: 'Paris forecast' }] });
    const text = message.content[2] as TextBlock;
    expect(text.citations).toEqual([expect.objectContaining({ type: 'web_search_result_location', url: FORECAST, title: 'Paris forecast', cited_text: 'Sunny, 18 C this afternoon.', encrypted_index: expect.any(String) })]);
    expect(usage.server_tool_use).toEqual({ web_search_requests: 1 });
    expect(Object.fromEntries(setup.searxng.requests[0]?.query ?? [])).toMatchObject({ q: 'paris weather', format: 'json' });
    const results = messagesOf(setup.alpha.requests[1])[2]?.content as { content: { type: string; source: string }[] }[];
    expect(results[0]?.content).toEqual([expect.objectContaining({ type: 'search_result', source: FORECAST, title: 'Paris forecast' })]);
  });
});

describe.each([false, true])('gateway:web_fetch of an allowlisted page (stream: %s)', (stream) => {
  it('the model reads the article as text; the client reads web_fetch_tool_result', async () => {
    const url = `${setup.web.origin}/fundy`;
    setup.alpha.enqueue(
      anthropicStep({ calls: [{ name: 'web_fetch', input: { url } }], usage: { input: 30, output: 5 } }),
      anthropicStep({ text: 'Up to sixteen metres.', usage: { input: 300, output: 6 } }),
    );
    const { message, usage } = await runLoop(setup.gateway, loopBody('test/claude', [{ type: 'gateway:web_fetch' }], { ...ALPHA, ...askingToRead(url) }), stream);
    for (const block of message.content) expectSpecBlock(block);
    expect(message.content[1]).toMatchObject({ type: 'web_fetch_tool_result', content: { type: 'web_fetch_result', url, content: { type: 'document', title: 'Tides of Fundy' } } });
    expect(JSON.stringify(message.content[1])).toContain('one hundred billion tonnes');
    expect(usage.server_tool_use).toEqual({ web_fetch_requests: 1 });
    expect(setup.web.paths).toEqual(['/fundy']);
    const result = (messagesOf(setup.alpha.requests[1])[2]?.content as { content: string; is_error?: boolean }[])[0];
    expect(result?.is_error).toBeUndefined();
    expect(JSON.stringify(result?.content)).toContain('highest tides in the world');
  });
});

describe('Brave, and a gateway whose web fetch may not reach 127.0.0.1', () => {
  let upstream: FakeUpstream;
  let brave: ScriptedServer;
  let web: FakeWebServer;
  let gateway: TestGateway;

  beforeAll(async () => {
    [upstream, brave, web] = await Promise.all([startFakeAnthropic(), startFakeBrave(), startFakeWebServer({ '/secret': serve('text/plain', 'internal only') })]);
    const catalog = catalogYaml([anthropicProviderYaml('alpha', upstream)], [modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude', price: [3, 15] }])]);
    const tools = ['server_tools:', `  web_search: { backend: brave, base_url: "${brave.origin}", api_key: "BSAloopkey0123456789" }`].join('\n');
    gateway = await startTestGateway({ catalogYaml: `${catalog}${tools}\n` });
  });

  afterAll(async () => {
    await gateway?.close();
    await Promise.all([upstream?.close(), brave?.close(), web?.close()]);
  });

  it('gateway:web_search through Brave', async () => {
    brave.enqueue(braveAnswer('fundy tides', [braveResult({ url: 'https://tides.example.org/fundy', title: 'Fundy tides', description: 'The highest tides.' })]));
    upstream.enqueue(
      anthropicStep({ calls: [{ name: 'web_search', input: { query: 'fundy tides' } }], usage: { input: 10, output: 5 } }),
      anthropicStep({ text: 'The highest tides.', usage: { input: 100, output: 5 } }),
    );
    const { message } = await runLoop(gateway, loopBody('test/claude', [{ type: 'gateway:web_search' }]), false);
    expect(message.content[1]).toMatchObject({ type: 'web_search_tool_result', content: [{ url: 'https://tides.example.org/fundy', title: 'Fundy tides' }] });
    expect(brave.requests[0]?.headers['x-subscription-token']).toBe('BSAloopkey0123456789');
  });

  it.each([
    ['a loopback address', () => `${web.origin}/secret`],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
    ['a private address', () => 'http://10.0.0.1/admin'],
  ])('%s: the model reads an error result, nothing is connected, the answer is a 200', async (_name, target) => {
    upstream.clear();
    const before = web.connections();
    upstream.enqueue(
      anthropicStep({ calls: [{ name: 'web_fetch', input: { url: target() } }], usage: { input: 10, output: 5 } }),
      anthropicStep({ text: 'I cannot reach that page.', usage: { input: 40, output: 7 } }),
    );
    const { message } = await runLoop(gateway, loopBody('test/claude', [{ type: 'gateway:web_fetch' }], askingToRead(target())), false);
    expect(message.content[1]).toEqual({ type: 'web_fetch_tool_result', tool_use_id: (message.content[0] as { id: string }).id, content: { type: 'web_fetch_tool_result_error', error_code: 'url_not_allowed' } });
    expect(message.content.at(-1)).toMatchObject({ type: 'text', text: 'I cannot reach that page.' });
    const result = (messagesOf(upstream.requests[1])[2]?.content as { is_error?: boolean; content: unknown }[])[0];
    expect(result?.is_error).toBe(true);
    expect(JSON.stringify(result?.content)).toContain('url_not_allowed');
    expect(web.connections()).toBe(before);
  });
});
