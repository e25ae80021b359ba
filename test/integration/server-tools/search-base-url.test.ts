/**
 * A search backend's `base_url` as operators write it: behind a reverse proxy under a path, with or without a
 * trailing slash, and with a proxy's token in its query. Over HTTP with the Anthropic SDK as the client, the
 * gateway's tool loop calls fake SearXNG and Brave servers that answer only on the path the base URL names, so
 * a doubled slash or a dropped path or query is a failed search the test sees. A token in the query, or a
 * token-shaped segment of the path (a proxy at `/p/<token>/searx`), is a secret like the backend's key: a
 * backend that quotes it has it cut out of what the model, the client and the log read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { braveAnswer, braveResult } from '#test/helpers/fake-tool-servers/fake-brave.ts';
import { searxngAnswer, searxngResult } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import { startScriptedServer, type ScriptedServer } from '#test/helpers/fake-tool-servers/scripted-json-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { loopBody, messagesOf, runLoop } from './loop/loop-support.ts';

const TOKEN = 'proxytoken-8f3c2a91d7e64b05';
const PATH_TOKEN = 'c3a1f09e7b2d4e6f8a9b0c1d2e3f4a5b';
const FORECAST = 'https://meteo.example.org/paris';

interface Setup {
  upstream: FakeUpstream;
  backend: ScriptedServer;
  gateway: TestGateway;
}

async function start(backendPath: string, searchYaml: (origin: string) => string): Promise<Setup> {
  const [upstream, backend] = await Promise.all([startFakeAnthropic(), startScriptedServer([backendPath])]);
  const catalog = catalogYaml([anthropicProviderYaml('alpha', upstream)], [modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude', price: [3, 15] }])]);
  const gateway = await startTestGateway({ catalogYaml: `${catalog}server_tools:\n  web_search: ${searchYaml(backend.origin)}\n` });
  return { upstream, backend, gateway };
}

async function stop(setup: Setup | undefined): Promise<void> {
  await setup?.gateway.close();
  await Promise.all([setup?.upstream.close(), setup?.backend.close()]);
}

function searchTurn(setup: Setup, query: string): void {
  setup.upstream.enqueue(
    anthropicStep({ calls: [{ name: 'web_search', input: { query } }], usage: { input: 20, output: 5 } }),
    anthropicStep({ text: 'Sunny.', usage: { input: 200, output: 5 } }),
  );
}

describe.each([
  ['with a trailing slash', '/searx/?token=', true],
  ['without a trailing slash', '/searx?token=', false],
])('SearXNG under a path, %s, a token in the query', (_name, suffix, stream) => {
  let setup: Setup | undefined;
  beforeAll(async () => {
    setup = await start('/searx/search', (origin) => `{ backend: searxng, base_url: "${origin}${suffix}${TOKEN}" }`);
  });
  afterAll(() => stop(setup));

  it('searches at the path under the base, with the base query kept beside the search parameters', async () => {
    const s = setup!;
    s.backend.enqueue(searxngAnswer('paris weather', [searxngResult({ url: FORECAST, title: 'Paris forecast', content: 'Sunny, 18 C.' })]));
    searchTurn(s, 'paris weather');
    const { message } = await runLoop(s.gateway, loopBody('test/claude', [{ type: 'gateway:web_search' }]), stream);
    expect(s.backend.requests.map((request) => request.path)).toEqual(['/searx/search']);
    expect(Object.fromEntries(s.backend.requests[0]?.query ?? [])).toEqual({ token: TOKEN, q: 'paris weather', format: 'json' });
    expect(message.content[1]).toMatchObject({ type: 'web_search_tool_result', content: [{ type: 'web_search_result', url: FORECAST }] });
  });

  it('a result quoting the token (a proxy echoing the URL it was called with) reaches the model without it', async () => {
    const s = setup!;
    s.backend.enqueue(searxngAnswer('paris weather', [searxngResult({ url: FORECAST, title: 'Paris forecast', content: `Sunny. Served for /searx/search?token=${TOKEN}` })]));
    searchTurn(s, 'paris weather');
    const { message } = await runLoop(s.gateway, loopBody('test/claude', [{ type: 'gateway:web_search' }]), stream);
    const sent = JSON.stringify(messagesOf(s.upstream.requests.at(-1)));
    expect(sent).toContain('Sunny. Served for');
    expect(sent).not.toContain(TOKEN);
    expect(JSON.stringify(message)).not.toContain(TOKEN);
  });
});

describe('SearXNG behind a proxy with its token in the path', () => {
  let setup: Setup | undefined;
  beforeAll(async () => {
    setup = await start(`/p/${PATH_TOKEN}/searx/search`, (origin) => `{ backend: searxng, base_url: "${origin}/p/${PATH_TOKEN}/searx" }`);
  });
  afterAll(() => stop(setup));

  it.each([false, true])('a result and an engine error quoting the URL reach the model, the client and the log without the token (stream: %s)', async (stream) => {
    const s = setup!;
    s.backend.requests.length = 0;
    s.upstream.clear();
    const served = `/p/${PATH_TOKEN}/searx/search?q=paris+weather`;
    s.backend.enqueue(searxngAnswer('paris weather', [searxngResult({ url: FORECAST, title: 'Paris forecast', content: `Sunny. Served for ${served}` })]));
    searchTurn(s, 'paris weather');
    const { message } = await runLoop(s.gateway, loopBody('test/claude', [{ type: 'gateway:web_search' }]), stream);
    s.backend.enqueue(searxngAnswer('fail', [], [['duckduckgo', `CAPTCHA for ${served} (${encodeURIComponent(PATH_TOKEN)})`]]));
    searchTurn(s, 'fail');
    const { message: failed } = await runLoop(s.gateway, loopBody('test/claude', [{ type: 'gateway:web_search' }]), stream);
    expect(s.backend.requests.map((request) => request.path)).toEqual([`/p/${PATH_TOKEN}/searx/search`, `/p/${PATH_TOKEN}/searx/search`]);
    const sent = JSON.stringify(s.upstream.requests.map(messagesOf));
    expect(sent).toContain('Sunny. Served for /p/[REDACTED]/searx/search');
    expect(sent).toContain('CAPTCHA for /p/[REDACTED]/searx/search');
    for (const text of [sent, JSON.stringify([message, failed]), s.gateway.logs.join('\n')]) expect(text).not.toContain(PATH_TOKEN.slice(0, 12));
    // The failed search's log line names the backend by its URL, the token shown as in destinations' endpoints.
    const logged = s.gateway.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.message === 'web_search failed');
    expect(logged.at(-1)).toMatchObject({ url: `${s.backend.origin}/p/***/searx`, reason: expect.stringContaining('CAPTCHA for /p/[REDACTED]/searx/search') });
  });
});

describe('Brave behind a proxy path with a trailing slash', () => {
  let setup: Setup | undefined;
  beforeAll(async () => {
    setup = await start('/brave/res/v1/web/search', (origin) => `{ backend: brave, base_url: "${origin}/brave/", api_key: "BSAproxykey0123456789" }`);
  });
  afterAll(() => stop(setup));

  it('searches at the API path under the base', async () => {
    const s = setup!;
    s.backend.enqueue(braveAnswer('fundy tides', [braveResult({ url: 'https://tides.example.org/fundy', title: 'Fundy tides', description: 'The highest tides.' })]));
    searchTurn(s, 'fundy tides');
    const { message } = await runLoop(s.gateway, loopBody('test/claude', [{ type: 'gateway:web_search' }]), false);
    expect(s.backend.requests.map((request) => request.path)).toEqual(['/brave/res/v1/web/search']);
    expect(s.backend.requests[0]?.query.get('q')).toBe('fundy tides');
    expect(message.content[1]).toMatchObject({ type: 'web_search_tool_result', content: [{ url: 'https://tides.example.org/fundy' }] });
  });
});
