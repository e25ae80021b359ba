/**
 * `gateway:web_fetch` fetches only URLs the conversation holds, as Anthropic's web fetch does: a URL the model
 * wrote itself (a prompt injection carrying data out in a query string) gets the error result
 * `url_not_in_prior_context` and no request reaches the site; a URL from the user's text, a search result of an
 * earlier step, a link in an earlier fetched page, a search result the client sent back, or a search result or
 * page the web or web-fetch plugin added to the prompt before the loop is fetched.
 */
import { describe, expect, it } from 'vitest';
import { anthropicStep } from '#test/helpers/fake-upstreams/index.ts';
import { searxngAnswer, searxngResult } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import { serve } from '#test/helpers/fake-tool-servers/fake-web-server.ts';
import { expectSpecBlock } from '#test/helpers/spec-blocks.ts';
import { askingToRead, loopBody, messagesOf, runLoop, useLoopGateway } from './loop-support.ts';

const setup = useLoopGateway({
  webRoutes: {
    '/fundy': serve('text/plain', 'The Bay of Fundy has the highest tides in the world.'),
    // Its link is absolute, on the fake site's own origin.
    '/index': (req, res) => {
      const link = `http://${req.headers.host ?? ''}/fundy`;
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`The tides are described at ${link} and nowhere else.`);
    },
  },
});
const ALPHA = { provider: { order: ['alpha'] } };

function fetchStep(url: string) {
  return anthropicStep({ calls: [{ name: 'web_fetch', input: { url } }], usage: { input: 10, output: 5 } });
}

const answerStep = () => anthropicStep({ text: 'Done.', usage: { input: 40, output: 3 } });

/** The model's tool_result for the step's first call, as the upstream's second request carries it. */
function modelResult(requestIndex: number, messageIndex: number): { is_error?: boolean; content: unknown } | undefined {
  return (messagesOf(setup.alpha.requests[requestIndex])[messageIndex]?.content as { is_error?: boolean; content: unknown }[])[0];
}

describe.each([false, true])('a URL the conversation does not hold (stream: %s)', (stream) => {
  it('is not requested: the client and the model get url_not_in_prior_context', async () => {
    const exfiltrating = `${setup.web.origin}/fundy?notes=the+user%27s+secret+plans`;
    setup.alpha.enqueue(fetchStep(exfiltrating), answerStep());
    // The user named the page without the query the model added.
    const { message } = await runLoop(setup.gateway, loopBody('test/claude', [{ type: 'gateway:web_fetch' }], { ...ALPHA, ...askingToRead(`${setup.web.origin}/fundy`), stream }), stream);
    for (const block of message.content) expectSpecBlock(block);
    expect(message.content[1]).toEqual({
      type: 'web_fetch_tool_result',
      tool_use_id: (message.content[0] as { id: string }).id,
      content: { type: 'web_fetch_tool_result_error', error_code: 'url_not_in_prior_context' },
    });
    expect(setup.web.paths).toEqual([]);
    const result = modelResult(1, 2);
    expect(result?.is_error).toBe(true);
    expect(JSON.stringify(result?.content)).toContain('url_not_in_prior_context');
  });
});

describe('a URL the conversation holds is fetched', () => {
  it("from the user's text, written before a full stop and without the trailing slash", async () => {
    setup.alpha.enqueue(fetchStep(`${setup.web.origin}/fundy#tides`), answerStep());
    const body = loopBody('test/claude', [{ type: 'gateway:web_fetch' }], { ...ALPHA, messages: [{ role: 'user', content: [{ type: 'text', text: `Read ${setup.web.origin}/fundy.` }] }] });
    const { message } = await runLoop(setup.gateway, body, false);
    expect(message.content[1]).toMatchObject({ type: 'web_fetch_tool_result', content: { type: 'web_fetch_result' } });
    expect(setup.web.paths).toEqual(['/fundy']);
  });

  it("from an earlier step's search result", async () => {
    const url = `${setup.web.origin}/fundy`;
    setup.searxng.enqueue(searxngAnswer('fundy tides', [searxngResult({ url, title: 'Fundy', content: 'The highest tides.' })]));
    setup.alpha.enqueue(anthropicStep({ calls: [{ name: 'web_search', input: { query: 'fundy tides' } }], usage: { input: 10, output: 5 } }), fetchStep(url), answerStep());
    const { message } = await runLoop(setup.gateway, loopBody('test/claude', [{ type: 'gateway:web_search' }, { type: 'gateway:web_fetch' }], ALPHA), true);
    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'server_tool_use', 'web_fetch_tool_result', 'text']);
    expect(message.content[3]).toMatchObject({ content: { type: 'web_fetch_result', url } });
    expect(setup.web.paths).toEqual(['/fundy']);
  });

  it('from a link in a page fetched at an earlier step, but not one the model wrote', async () => {
    const index = `${setup.web.origin}/index`;
    setup.alpha.enqueue(fetchStep(index), fetchStep(`${setup.web.origin}/fundy`), fetchStep(`${setup.web.origin}/elsewhere`), answerStep());
    // The index page names /fundy; the model's text naming /elsewhere does not make it fetchable.
    const { message } = await runLoop(setup.gateway, loopBody('test/claude', [{ type: 'gateway:web_fetch' }], { ...ALPHA, ...askingToRead(index) }), false);
    expect(message.content.filter((block) => block.type === 'web_fetch_tool_result').map((block) => (block as { content: { type: string } }).content.type)).toEqual([
      'web_fetch_result',
      'web_fetch_result',
      'web_fetch_tool_result_error',
    ]);
    expect(setup.web.paths).toEqual(['/index', '/fundy']);
  });

  it('from a web search result the client sent back in an earlier assistant turn', async () => {
    const url = `${setup.web.origin}/fundy`;
    setup.alpha.enqueue(fetchStep(url), answerStep());
    const messages = [
      { role: 'user', content: 'Find pages about the Bay of Fundy.' },
      {
        role: 'assistant',
        content: [
          { type: 'server_tool_use', id: 'srvtoolu_earlier01', name: 'web_search', input: { query: 'fundy' } },
          { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_earlier01', content: [{ type: 'web_search_result', url, title: 'Fundy', encrypted_content: 'opaque', page_age: null }] },
          { type: 'text', text: 'I found one page.' },
        ],
      },
      { role: 'user', content: 'Read the first one.' },
    ];
    const { message } = await runLoop(setup.gateway, loopBody('test/claude', [{ type: 'gateway:web_search' }, { type: 'gateway:web_fetch' }], { ...ALPHA, messages }), false);
    expect(message.content[1]).toMatchObject({ type: 'web_fetch_tool_result', content: { type: 'web_fetch_result', url } });
    expect(setup.web.paths).toEqual(['/fundy']);
  });
});

describe('a URL the web plugins added before the loop', () => {
  it("from the web plugin's search results is fetched", async () => {
    const url = `${setup.web.origin}/fundy`;
    setup.searxng.enqueue(searxngAnswer('Where are the highest tides?', [searxngResult({ url, title: 'Fundy', content: 'The highest tides.' })]));
    setup.alpha.enqueue(fetchStep(url), answerStep());
    const body = loopBody('test/claude', [{ type: 'gateway:web_fetch' }], { ...ALPHA, plugins: [{ id: 'web' }], messages: [{ role: 'user', content: 'Where are the highest tides?' }] });
    const { message } = await runLoop(setup.gateway, body, false);
    expect(message.content[1]).toMatchObject({ type: 'web_fetch_tool_result', content: { type: 'web_fetch_result', url } });
    expect(setup.web.paths).toEqual(['/fundy']);
  });

  it("from a page the web-fetch plugin added (a link in it) is fetched", async () => {
    const index = `${setup.web.origin}/index`;
    setup.alpha.enqueue(fetchStep(`${setup.web.origin}/fundy`), answerStep());
    const body = loopBody('test/claude', [{ type: 'gateway:web_fetch' }], { ...ALPHA, plugins: [{ id: 'web-fetch' }], ...askingToRead(index) });
    const { message } = await runLoop(setup.gateway, body, false);
    expect(message.content[1]).toMatchObject({ type: 'web_fetch_tool_result', content: { type: 'web_fetch_result' } });
    expect(setup.web.paths).toEqual(['/index', '/fundy']);
  });
});
