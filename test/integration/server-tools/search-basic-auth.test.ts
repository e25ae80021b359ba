/**
 * A SearXNG instance behind HTTP Basic authentication (nginx's `auth_basic` in front of it, the common way to
 * expose one), configured as `base_url: http://user:password@host/searx`: the gateway calls it without the
 * user-info and with `Authorization: Basic base64(user:password)`, the pair percent-decoded, so searches work
 * instead of a 401. A backend that quotes the header it was sent (in a result, and in an engine's error, which
 * reaches the model and the log) has the token, the pair and the password cut. Over HTTP with the Anthropic SDK
 * as the client, a fake SearXNG speaking its JSON API.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { anthropicStep, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { searxngAnswer, searxngResult } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import { startScriptedServer, type ReceivedRequest, type ScriptedReply, type ScriptedServer } from '#test/helpers/fake-tool-servers/scripted-json-server.ts';
import { secretFormsIn } from '#test/helpers/secret-forms.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import { loopBody, messagesOf, runLoop } from './loop/loop-support.ts';

const PASSWORD = 'se@rx:pass-7c1e93b0d4a2';
const AUTHORIZATION = `Basic ${Buffer.from(`searx:${PASSWORD}`, 'utf8').toString('base64')}`;
const TOKEN = AUTHORIZATION.slice('Basic '.length);
const FORECAST = 'https://meteo.example.org/paris';

let upstream: FakeUpstream;
let backend: ScriptedServer;
let gateway: TestGateway;

/** The instance behind nginx: a 401 without the right credentials, else `answer`. */
function behindBasic(answer: (request: ReceivedRequest) => ScriptedReply): (request: ReceivedRequest) => ScriptedReply {
  return (request) => (request.headers.authorization === AUTHORIZATION ? answer(request) : { status: 401, body: '<html><body><h1>401 Authorization Required</h1></body></html>', headers: { 'www-authenticate': 'Basic realm="searx"' } });
}

beforeAll(async () => {
  [upstream, backend] = await Promise.all([startFakeAnthropic(), startScriptedServer(['/searx/search'])]);
  const catalog = catalogYaml([anthropicProviderYaml('alpha', upstream)], [modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude', price: [3, 15] }])]);
  const baseUrl = `http://searx:${encodeURIComponent(PASSWORD)}@127.0.0.1:${new URL(backend.origin).port}/searx`;
  gateway = await startTestGateway({ catalogYaml: `${catalog}server_tools:\n  web_search: { backend: searxng, base_url: "${baseUrl}" }\n` });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([upstream?.close(), backend?.close()]);
});

function searchTurn(query: string): void {
  upstream.enqueue(anthropicStep({ calls: [{ name: 'web_search', input: { query } }], usage: { input: 20, output: 5 } }), anthropicStep({ text: 'Sunny.', usage: { input: 200, output: 5 } }));
}

it('searches with the user-info as Basic authentication, the URL called without it', async () => {
  backend.enqueue(behindBasic(() => searxngAnswer('paris weather', [searxngResult({ url: FORECAST, title: 'Paris forecast', content: 'Sunny, 18 C.' })])));
  searchTurn('paris weather');
  const { message } = await runLoop(gateway, loopBody('test/claude', [{ type: 'gateway:web_search' }]), false);
  expect(backend.requests.map((request) => [request.path, request.headers.authorization])).toEqual([['/searx/search', AUTHORIZATION]]);
  expect(message.content[1]).toMatchObject({ type: 'web_search_tool_result', content: [{ type: 'web_search_result', url: FORECAST }] });
});

it.each([false, true])('a backend quoting the header it was sent, in a result and an engine error: cut everywhere (stream: %s)', async (stream) => {
  upstream.clear();
  backend.enqueue(behindBasic((request) => searxngAnswer('paris weather', [searxngResult({ url: FORECAST, title: 'Paris forecast', content: `Sunny. Served for ${request.headers.authorization}` })])));
  searchTurn('paris weather');
  const { message } = await runLoop(gateway, loopBody('test/claude', [{ type: 'gateway:web_search' }]), stream);
  backend.enqueue(behindBasic((request) => searxngAnswer('fail', [], [['duckduckgo', `upstream refused ${request.headers.authorization} (decoded: searx:${PASSWORD})`]])));
  searchTurn('fail');
  const { message: failed } = await runLoop(gateway, loopBody('test/claude', [{ type: 'gateway:web_search' }]), stream);
  const sent = JSON.stringify(upstream.requests.map(messagesOf));
  expect(sent).toContain('Sunny. Served for Basic [REDACTED]');
  expect(sent).toContain('upstream refused Basic [REDACTED]');
  const logged = gateway.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.message === 'web_search failed');
  // The log names the backend with its user-info as ***, and the engine's words without the credentials.
  expect(logged.at(-1)).toMatchObject({ url: `http://***@127.0.0.1:${new URL(backend.origin).port}/searx`, reason: expect.stringContaining('upstream refused Basic [REDACTED]') });
  const texts = { 'the model\'s requests': sent, 'the answers': JSON.stringify([message, failed]), 'the log': gateway.logs.join('\n') };
  expect(Object.entries(texts).flatMap(([where, text]) => secretFormsIn(text, [PASSWORD, `searx:${PASSWORD}`, TOKEN], where))).toEqual([]);
});
