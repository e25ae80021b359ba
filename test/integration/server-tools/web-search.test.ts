import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clientToolUseBlock, convertToModelToolTurns, executeGatewayTool, modelToolResultBlock, newGatewayToolUseId, type GatewayToolOutcome, type ServerToolRuntime } from '#src/server-tools/index.ts';
import type { MessageParam } from '#src/api-types.ts';
import { fromOpaque } from '#src/server-tools/web-search/opaque-content.ts';
import { braveAnswer, braveError, braveResult, startFakeBrave } from '#test/helpers/fake-tool-servers/fake-brave.ts';
import { searxngAnswer, searxngResult, startFakeSearxng } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import type { ScriptedServer } from '#test/helpers/fake-tool-servers/scripted-json-server.ts';
import { callOf, serverToolsConfig, toolContext, toolOf } from '#test/helpers/server-tool-context.ts';
import { expectSpecBlock } from '#test/helpers/spec-blocks.ts';

let searxng: ScriptedServer;
let brave: ScriptedServer;
const runtimes: ServerToolRuntime[] = [];

beforeAll(async () => {
  [searxng, brave] = await Promise.all([startFakeSearxng(), startFakeBrave()]);
});

afterAll(async () => {
  await Promise.all(runtimes.map((runtime) => runtime.close()));
  await Promise.all([searxng.close(), brave.close()]);
});

beforeEach(() => {
  searxng.requests.length = 0;
  brave.requests.length = 0;
});

async function search(webSearch: Record<string, unknown>, input: unknown, entry: Record<string, unknown> = {}): Promise<{ outcome: GatewayToolOutcome; logs: string[] }> {
  const config = serverToolsConfig({ web_search: webSearch });
  const { context, runtime, logs } = toolContext(config);
  runtimes.push(runtime);
  const call = callOf(toolOf(config, { type: 'gateway:web_search', ...entry }), input);
  expectSpecBlock(clientToolUseBlock(call));
  const outcome = await executeGatewayTool(call, context);
  expectSpecBlock(outcome.clientResult);
  return { outcome, logs };
}

const searxngConfig = () => ({ backend: 'searxng', base_url: searxng.origin, headers: { Authorization: 'Basic c2VhcnhuZzpzZWNyZXQ=' } });
const braveConfig = () => ({ backend: 'brave', base_url: brave.origin, api_key: 'BSAtestkey0123456789' });

describe('gateway:web_search on SearXNG', () => {
  it('sends the query to the JSON API and gives the model titles, URLs and snippets', async () => {
    searxng.enqueue(
      searxngAnswer('bay of fundy tides', [
        searxngResult({ url: 'https://tides.example.org/fundy', title: 'Bay of Fundy &amp; its tides', content: 'The <b>highest</b> tides in the world, up to 16 m.', publishedDate: '2025-11-02T00:00:00' }),
        searxngResult({ url: 'https://tides.example.org/fundy', title: 'duplicate from another engine', content: 'same page', engine: 'brave' }),
        searxngResult({ url: 'https://en.example.net/wiki/Bay_of_Fundy', title: 'Bay of Fundy - Encyclopedia', content: 'A bay between New Brunswick and Nova Scotia.' }),
        searxngResult({ url: 'https://third.example.com/', title: 'Third', content: 'cut by max_results' }),
      ]),
    );
    const { outcome } = await search(searxngConfig(), { query: '  bay of fundy tides ' }, { max_results: 2 });
    const [request] = searxng.requests;
    expect(request?.path).toBe('/search');
    expect(Object.fromEntries(request?.query ?? [])).toEqual({ q: 'bay of fundy tides', format: 'json' });
    expect(request?.headers.authorization).toBe('Basic c2VhcnhuZzpzZWNyZXQ=');
    expect(request?.headers.accept).toBe('application/json');
    expect(outcome.isError).toBe(false);
    expect(outcome.modelText).toBe(
      'Search results for "bay of fundy tides":\n\n' +
        '[1] Bay of Fundy & its tides\nURL: https://tides.example.org/fundy\nPage age: 2025-11-02T00:00:00\nThe highest tides in the world, up to 16 m.\n\n' +
        '[2] Bay of Fundy - Encyclopedia\nURL: https://en.example.net/wiki/Bay_of_Fundy\nA bay between New Brunswick and Nova Scotia.',
    );
    expect(outcome.modelContent).toEqual([
      { type: 'search_result', source: 'https://tides.example.org/fundy', title: 'Bay of Fundy & its tides', content: [{ type: 'text', text: 'Page age: 2025-11-02T00:00:00\nThe highest tides in the world, up to 16 m.' }], citations: { enabled: true } },
      { type: 'search_result', source: 'https://en.example.net/wiki/Bay_of_Fundy', title: 'Bay of Fundy - Encyclopedia', content: [{ type: 'text', text: 'A bay between New Brunswick and Nova Scotia.' }], citations: { enabled: true } },
    ]);
    const results = (outcome.clientResult as { content: { url: string; title: string; page_age: string | null; encrypted_content: string }[] }).content;
    expect(results.map(({ url, title, page_age }) => ({ url, title, page_age }))).toEqual([
      { url: 'https://tides.example.org/fundy', title: 'Bay of Fundy & its tides', page_age: '2025-11-02T00:00:00' },
      { url: 'https://en.example.net/wiki/Bay_of_Fundy', title: 'Bay of Fundy - Encyclopedia', page_age: null },
    ]);
    expect(fromOpaque(results[0]?.encrypted_content)).toEqual({ snippet: 'The highest tides in the world, up to 16 m.' });
    expect(outcome.usage).toEqual({ web_search_requests: 1 });
  });

  it('the model\'s next turn: search results for Anthropic, text elsewhere', async () => {
    searxng.enqueue(searxngAnswer('q', [searxngResult({ url: 'https://a.example/', title: 'A', content: 'alpha' })]));
    const { outcome } = await search(searxngConfig(), { query: 'q' });
    expect(modelToolResultBlock(outcome, { searchResultBlocks: true })).toEqual({ type: 'tool_result', tool_use_id: outcome.toolUseId, content: outcome.modelContent });
    expect(modelToolResultBlock(outcome, { searchResultBlocks: false })).toEqual({ type: 'tool_result', tool_use_id: outcome.toolUseId, content: 'Search results for "q":\n\n[1] A\nURL: https://a.example/\nalpha' });
  });

  it('passed back on a later turn, the blocks give the model the same results again', async () => {
    searxng.enqueue(
      searxngAnswer('q', [
        searxngResult({ url: 'https://a.example/', title: 'A', content: 'alpha', publishedDate: '2026-01-01' }),
        searxngResult({ url: 'https://b.example/', title: 'B', content: 'beta' }),
      ]),
    );
    const config = serverToolsConfig({ web_search: searxngConfig() });
    const { context, runtime } = toolContext(config);
    runtimes.push(runtime);
    const call = { ...callOf(toolOf(config, { type: 'gateway:web_search' }), { query: 'q' }), id: newGatewayToolUseId() };
    const outcome = await executeGatewayTool(call, context);
    const history = [{ role: 'user', content: 'q?' }, { role: 'assistant', content: [clientToolUseBlock(call), outcome.clientResult, { type: 'text', text: 'A and B.' }] }] as MessageParam[];
    for (const searchResultBlocks of [true, false]) {
      const [, assistant, user] = convertToModelToolTurns(history, { searchResultBlocks });
      expect(assistant?.content).toEqual([{ type: 'tool_use', id: call.id, name: 'web_search', input: { query: 'q' } }]);
      expect(user?.content).toEqual([modelToolResultBlock(outcome, { searchResultBlocks })]);
    }
  });

  it('no results is an answer, not an error', async () => {
    searxng.enqueue(searxngAnswer('zxqv', []));
    const { outcome } = await search(searxngConfig(), { query: 'zxqv' });
    expect(outcome.isError).toBe(false);
    expect(outcome.modelText).toBe('No results for "zxqv".');
    expect((outcome.clientResult as { content: unknown[] }).content).toEqual([]);
  });

  it.each([
    ['the JSON format disabled (403)', { status: 403, body: '<h1>403 Forbidden</h1>' }, 'unavailable', 'enable json under search.formats'],
    ['rate limiting (429)', { status: 429, body: '<h1>Too Many Requests</h1>' }, 'too_many_requests', 'rate limiting the gateway'],
    ['a server error', { status: 502, body: '<h1>Bad gateway</h1>' }, 'unavailable', 'SearXNG answered HTTP 502'],
    ['every engine failing', searxngAnswer('q', [], [['google', 'timeout'], ['duckduckgo', 'CAPTCHA']]), 'unavailable', 'every SearXNG engine failed (google: timeout, duckduckgo: CAPTCHA)'],
    ['a body without results', { body: { query: 'q' } }, 'unavailable', 'SearXNG answered without a results list'],
  ])('%s is an error result', async (_name, reply, code, message) => {
    searxng.enqueue(reply);
    const { outcome } = await search(searxngConfig(), { query: 'q' });
    expect(outcome.isError).toBe(true);
    expect(outcome.clientResult).toEqual({ type: 'web_search_tool_result', tool_use_id: outcome.toolUseId, content: { type: 'web_search_tool_result_error', error_code: code } });
    expect(outcome.modelText).toContain(message);
  });

  it('a backend that does not answer in time is an error result', async () => {
    searxng.enqueue({ ...searxngAnswer('q', []), delayMs: 2_000 });
    const started = Date.now();
    const { outcome } = await search({ ...searxngConfig(), timeout_ms: 200 }, { query: 'q' });
    expect(outcome.modelText).toBe('Error (unavailable): SearXNG did not answer within 200 ms');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('a backend that is down is an error result', async () => {
    const { outcome } = await search({ backend: 'searxng', base_url: 'http://127.0.0.1:1' }, { query: 'q' });
    expect(outcome.modelText).toBe('Error (unavailable): SearXNG could not be reached (ECONNREFUSED)');
  });
});

describe('gateway:web_search on the Brave Search API', () => {
  it('sends the key and count, and reads web.results', async () => {
    brave.enqueue(
      braveAnswer('fundy tides', [
        braveResult({ url: 'https://tides.example.org/fundy', title: 'Bay of Fundy Tides', description: 'The <strong>highest tides</strong> on Earth &#x27;twice a day&#x27;.', pageAge: '2025-11-02T08:00:00', age: 'November 2, 2025' }),
        braveResult({ url: 'https://news.example.com/tides', title: 'Tide tables', description: 'Tables for <strong>Fundy</strong>.', age: '3 days ago' }),
      ]),
    );
    const { outcome, logs } = await search(braveConfig(), { query: 'fundy tides' }, { max_results: 3 });
    const [request] = brave.requests;
    expect(request?.path).toBe('/res/v1/web/search');
    expect(Object.fromEntries(request?.query ?? [])).toEqual({ q: 'fundy tides', count: '3' });
    expect(request?.headers['x-subscription-token']).toBe('BSAtestkey0123456789');
    expect(outcome.modelText).toBe(
      'Search results for "fundy tides":\n\n' +
        "[1] Bay of Fundy Tides\nURL: https://tides.example.org/fundy\nPage age: 2025-11-02T08:00:00\nThe highest tides on Earth 'twice a day'.\n\n" +
        '[2] Tide tables\nURL: https://news.example.com/tides\nPage age: 3 days ago\nTables for Fundy.',
    );
    expect(logs.join('\n')).not.toContain('BSAtestkey0123456789');
  });

  it('without web results (Brave leaves web out) the answer is empty', async () => {
    brave.enqueue(braveAnswer('zxqv', []));
    const { outcome } = await search(braveConfig(), { query: 'zxqv' });
    expect(outcome.isError).toBe(false);
    expect(outcome.modelText).toBe('No results for "zxqv".');
  });

  it.each([
    ['an invalid key (422)', braveError(422, 'SUBSCRIPTION_TOKEN_INVALID', 'The provided subscription token is invalid.'), 'unavailable', "Brave Search rejected the gateway's API key"],
    ['rate limiting (429)', braveError(429, 'RATE_LIMITED', 'Request rate limit exceeded for plan.'), 'too_many_requests', 'RATE_LIMITED: Request rate limit exceeded for plan.'],
    ['an exhausted quota (429)', braveError(429, 'QUOTA_LIMITED', 'Request quota limit exceeded for plan.'), 'too_many_requests', 'QUOTA_LIMITED'],
    ['an error listed in errors[] (the documented example)', { status: 404, body: { type: 'ErrorResponse', errors: [{ code: 'SUBSCRIPTION_NOT_FOUND', detail: 'No subscription found.', status: 404 }] } }, 'unavailable', 'HTTP 404 (SUBSCRIPTION_NOT_FOUND: No subscription found.)'],
    ['a body that is not JSON', { status: 200, body: '<html>maintenance</html>' }, 'unavailable', 'not JSON'],
  ])('%s is an error result', async (_name, reply, code, message) => {
    brave.enqueue(reply);
    const { outcome, logs } = await search(braveConfig(), { query: 'q' });
    expect(outcome.isError).toBe(true);
    expect((outcome.clientResult as { content: { error_code: string } }).content.error_code).toBe(code);
    expect(outcome.modelText).toContain(message);
    expect(logs.join('\n')).not.toContain('BSAtestkey0123456789');
  });
});

describe('gateway:web_search input', () => {
  it.each([
    ['no query', {}, 'invalid_tool_input'],
    ['an empty query', { query: '  ' }, 'invalid_tool_input'],
    ['a query that is not text', { query: 42 }, 'invalid_tool_input'],
    ['a query over the limit', { query: 'x'.repeat(401) }, 'query_too_long'],
  ])('%s is an error result, with nothing sent', async (_name, input, code) => {
    const { outcome } = await search(braveConfig(), input);
    expect((outcome.clientResult as { content: { error_code: string } }).content.error_code).toBe(code);
    expect(brave.requests).toEqual([]);
  });

  it('the configured default number of results applies when the request gives none', async () => {
    brave.enqueue(braveAnswer('q', []));
    await search({ ...braveConfig(), default_max_results: 7, max_results: 15 }, { query: 'q' });
    expect(brave.requests[0]?.query.get('count')).toBe('7');
  });
});
