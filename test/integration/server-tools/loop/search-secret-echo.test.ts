/**
 * A search backend's credentials (SearXNG behind a proxy's Basic header and a token header; Brave's
 * `X-Subscription-Token`) never leave the gateway through what the backend answers: results whose title,
 * URL, snippet and date quote the credentials the request carried (whole, base64, hex, percent-encoded), and
 * errors that quote them (SearXNG's engine messages, Brave's `detail`). Driven with the Anthropic SDK, JSON
 * and stream; checked in the answers, in what the model was sent, in the log, in the generation records, in
 * the webhook, OTLP and Langfuse deliveries (all with content) and in `/metrics`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep } from '#test/helpers/fake-upstreams/index.ts';
import { distinctiveKey } from '#test/helpers/credential-gateway.ts';
import { quotedInEveryForm } from '#test/helpers/secret-forms.ts';
import { braveAnswer, braveError, braveResult, startFakeBrave } from '#test/helpers/fake-tool-servers/fake-brave.ts';
import { searxngAnswer, searxngResult, startFakeSearxng } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import type { ReceivedRequest, ScriptedReply, ScriptedServer } from '#test/helpers/fake-tool-servers/scripted-json-server.ts';
import { loopBody, runLoop } from './loop-support.ts';
import { leaks, sinkTexts, startSinkGateway, type SinkGateway } from './secret-sinks.ts';

const SEARX_PASSWORD = distinctiveKey('searxpassword');
const SEARX_BASIC = Buffer.from(`gateway:${SEARX_PASSWORD}`).toString('base64');
const SEARX_TOKEN = distinctiveKey('searxtoken');
const BRAVE_KEY = distinctiveKey('bravekey');

/** Every credential header of a request, quoted in every form. */
function quotedHeaders(request: ReceivedRequest): string {
  const basic = String(request.headers.authorization ?? '').replace(/^Basic\s+/i, '');
  const decoded = Buffer.from(basic, 'base64').toString('utf8');
  const values = [String(request.headers.authorization ?? ''), decoded, String(request.headers['x-searx-token'] ?? ''), String(request.headers['x-subscription-token'] ?? '')];
  return values.filter(Boolean).map(quotedInEveryForm).join('; ');
}

/** A page that shows who asked: the URL carries the token, the rest quotes every header. */
function debugPage(request: ReceivedRequest): { url: string; title: string; snippet: string } {
  const token = String(request.headers['x-searx-token'] ?? request.headers['x-subscription-token'] ?? '');
  return { url: `https://debug.example.org/whoami?token=${encodeURIComponent(token)}`, title: `Request from ${quotedHeaders(request)}`, snippet: `Headers: ${quotedHeaders(request)}` };
}

interface Backend {
  yaml: (origin: string) => string[];
  env: Record<string, string>;
  start: () => Promise<ScriptedServer>;
  /** Results for a query, an error for a query holding `fail`. */
  answer: (request: ReceivedRequest) => ScriptedReply;
  secrets: string[];
}

const BACKENDS: [string, Backend][] = [
  [
    'SearXNG behind a proxy',
    {
      yaml: (origin) => [`  web_search: { backend: searxng, base_url: "${origin}", headers: { Authorization: "Basic \${SEARX_BASIC}", X-Searx-Token: "\${SEARX_TOKEN}" } }`],
      env: { SEARX_BASIC, SEARX_TOKEN },
      start: startFakeSearxng,
      answer: (request) => {
        const query = request.query.get('q') ?? '';
        if (query.includes('fail')) return searxngAnswer(query, [], [['duckduckgo', `access denied for ${quotedHeaders(request)}`]]);
        const page = debugPage(request);
        return searxngAnswer(query, [searxngResult({ url: page.url, title: page.title, content: page.snippet, publishedDate: `2026-11-01 (${SEARX_TOKEN})` })]);
      },
      secrets: [SEARX_PASSWORD, SEARX_BASIC, SEARX_TOKEN],
    },
  ],
  [
    'Brave',
    {
      yaml: (origin) => [`  web_search: { backend: brave, base_url: "${origin}", api_key: "\${BRAVE_KEY}" }`],
      env: { BRAVE_KEY },
      start: startFakeBrave,
      answer: (request) => {
        const query = request.query.get('q') ?? '';
        if (query.includes('fail')) return braveError(429, 'RATE_LIMITED', `Request rate limit exceeded for the subscription token ${quotedHeaders(request)}`);
        const page = debugPage(request);
        return braveAnswer(query, [braveResult({ url: page.url, title: page.title, description: page.snippet, pageAge: `2026-11-01 (${BRAVE_KEY})` })]);
      },
      secrets: [BRAVE_KEY],
    },
  ],
];

describe.each(BACKENDS)('%s quoting its credentials in its results and errors', (_name, backend) => {
  let server: ScriptedServer;
  let setup: SinkGateway;
  const answers: unknown[] = [];

  beforeAll(async () => {
    server = await backend.start();
    setup = await startSinkGateway(backend.yaml(server.origin), backend.env);
  });

  afterAll(async () => {
    await setup?.close();
    await server?.close();
  });

  it.each([false, true])('the search\'s result and its error reach the model and the client without them (stream: %s)', async (stream) => {
    server.enqueue(backend.answer, backend.answer);
    setup.upstream.enqueue(
      anthropicStep({ calls: [{ name: 'web_search', input: { query: 'who am i' } }, { name: 'web_search', input: { query: 'fail please' } }], usage: { input: 30, output: 12 } }),
      anthropicStep({ text: 'Done.', usage: { input: 90, output: 3 } }),
    );
    const { message, events } = await runLoop(setup.gateway, loopBody('test/claude', [{ type: 'gateway:web_search' }]), stream);
    answers.push(message, events);
    const results = message.content.filter((block) => block.type === 'web_search_tool_result') as unknown as { content: unknown }[];
    expect(results).toHaveLength(2);
    // The results still arrive (their URL with the token cut out); the failure is its error code.
    expect(results[0]?.content).toMatchObject([{ type: 'web_search_result', url: expect.stringMatching(/^https:\/\/debug\.example\.org\/whoami\?token=\[REDACTED\]/) }]);
    expect(results[1]?.content).toMatchObject({ type: 'web_search_tool_result_error' });
  });

  it('no form of a credential is in the answers, the model\'s requests, the log, the records, the exports or /metrics', async () => {
    const texts = await sinkTexts(setup, answers, 2);
    expect(leaks(texts, backend.secrets)).toEqual([]);
    // The model read the results and the error, without the credentials.
    expect(texts['the model\'s requests'].includes('[REDACTED]')).toBe(true);
  });
});
