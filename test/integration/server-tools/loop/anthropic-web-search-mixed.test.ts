/**
 * Anthropic's web search tool (`web_search_20250305`) in a plan with an Anthropic-format endpoint first and a
 * translated fallback, over HTTP with the Anthropic SDK: the decision is per attempt. The Anthropic endpoints
 * fail with a 500, the OpenAI fallback serves and the gateway runs the search on SearXNG (the answer carries
 * `server_tool_use` and `web_search_tool_result`); when the Anthropic endpoint serves, it is offered the tool
 * exactly as sent and the gateway searches nothing. The tool's `user_location` reaches SearXNG as `language`.
 */
import { describe, expect, it } from 'vitest';
import { anthropicStep, openAiChatStep, reply } from '#test/helpers/fake-upstreams/index.ts';
import { searxngAnswer, searxngResult } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import { expectSpecBlock } from '#test/helpers/spec-blocks.ts';
import { bodyOf, loopBody, runLoop, useLoopGateway } from './loop-support.ts';

const setup = useLoopGateway();
const FORECAST = 'https://meteo.example.ch/zurich';
const LOCATION = { type: 'approximate', city: 'Zurich', region: 'Zurich', country: 'CH', timezone: 'Europe/Zurich' };
const WEB_SEARCH = { type: 'web_search_20250305', name: 'web_search', max_uses: 2, user_location: LOCATION };
// test/claude's two Anthropic-format endpoints first, then the translated fallback model.
const MIXED = { fallbacks: [{ model: 'test/gpt' }] };

function forecastResults() {
  return searxngAnswer('zurich weather', [searxngResult({ url: FORECAST, title: 'Zurich forecast', content: 'Fog, 6 C.' })]);
}

describe.each([false, true])('web_search_20250305, Anthropic-format endpoints first, an OpenAI fallback (stream: %s)', (stream) => {
  it('the Anthropic endpoints fail with a 500: the OpenAI fallback serves with the gateway search on SearXNG', async () => {
    setup.alpha.enqueue(reply.error(500));
    setup.beta.enqueue(reply.error(500));
    setup.searxng.enqueue(forecastResults());
    setup.openai.enqueue(
      openAiChatStep({ calls: [{ name: 'web_search', input: { query: 'zurich weather' } }], usage: { input: 50, output: 10 } }),
      openAiChatStep({ text: 'Foggy, 6 C.', usage: { input: 300, output: 6 } }),
    );
    const { message, usage } = await runLoop(setup.gateway, loopBody('test/claude', [WEB_SEARCH], MIXED), stream);

    for (const block of message.content) expectSpecBlock(block);
    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
    expect(message.content[0]).toMatchObject({ type: 'server_tool_use', name: 'web_search', input: { query: 'zurich weather' } });
    expect(message.content[1]).toMatchObject({ content: [{ type: 'web_search_result', url: FORECAST, title: 'Zurich forecast' }] });
    expect(usage.server_tool_use).toEqual({ web_search_requests: 1 });
    // The Anthropic endpoints were offered the tool as sent (their own search), before they failed.
    expect(bodyOf(setup.alpha.requests[0]).tools).toEqual([WEB_SEARCH]);
    expect(bodyOf(setup.openai.requests[0]).tools).toEqual([{ type: 'function', function: expect.objectContaining({ name: 'web_search' }) }]);
    // The location, as SearXNG can say it: Switzerland's main language and the country.
    expect(setup.searxng.requests).toHaveLength(1);
    expect(Object.fromEntries(setup.searxng.requests[0]?.query ?? [])).toEqual({ q: 'zurich weather', format: 'json', language: 'de-CH' });
  });

  it('the Anthropic endpoint serves: it is offered the tool as sent, and the gateway searches nothing', async () => {
    setup.alpha.enqueue(anthropicStep({ text: 'Foggy.', usage: { input: 50, output: 4 } }));
    const { message } = await runLoop(setup.gateway, loopBody('test/claude', [WEB_SEARCH], MIXED), stream);
    expect(message.content.map((block) => block.type)).toEqual(['text']);
    expect(bodyOf(setup.alpha.requests[0]).tools).toEqual([WEB_SEARCH]);
    expect(setup.openai.requests).toHaveLength(0);
    expect(setup.searxng.requests).toHaveLength(0);
  });
});

describe('web_search_20250305 user_location on a translated model', () => {
  it('a country that is not two letters is a 400 naming the field; nothing is called', async () => {
    const tool = { ...WEB_SEARCH, user_location: { type: 'approximate', country: 'Switzerland' } };
    await expect(runLoop(setup.gateway, loopBody('test/gpt', [tool]), false)).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('tools[0].user_location.country: must be a two-letter ISO 3166-1 country code'),
    });
    expect(setup.openai.requests).toHaveLength(0);
  });
});
