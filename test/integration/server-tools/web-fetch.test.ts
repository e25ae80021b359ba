import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientToolUseBlock, executeGatewayTool, type GatewayToolOutcome, type ServerToolRuntime } from '#src/server-tools/index.ts';
import { redirect, serve, startFakeWebServer, type FakeWebServer } from '#test/helpers/fake-tool-servers/fake-web-server.ts';
import { makePdf } from '#test/helpers/fake-tool-servers/make-pdf.ts';
import { callOf, fixedResolver, serverToolsConfig, toolContext, toolOf } from '#test/helpers/server-tool-context.ts';
import { expectSpecBlock } from '#test/helpers/spec-blocks.ts';

const ARTICLE = `<!doctype html>
<html><head><title>Tides of the Atlantic | Ocean News</title><script>window.tracking = true;</script><style>p { color: red }</style></head>
<body>
  <nav><a href="/">Home</a> <a href="/about">About</a> <a href="/login">Log in</a></nav>
  <article>
    <h1>Tides of the Atlantic</h1>
    <p>The Atlantic coast sees two high tides a day. Their height depends on the moon, the sun and the shape of the coast, and in the Bay of Fundy the difference between low and high water reaches sixteen metres.</p>
    <h2>Why the bay is special</h2>
    <p>The bay's natural period of oscillation is close to the period of the tide itself, so each tide pushes the water higher, like a child on a swing pushed at just the right moment.</p>
    <ul><li>Highest tides in the world</li><li>Twice a day</li></ul>
    <p>Fishermen there plan their days around the water, and the mud flats at low tide stretch for kilometres.</p>
  </article>
  <footer>Copyright Ocean News. <a href="/privacy">Privacy</a></footer>
</body></html>`;

const PINNED = new Date('2026-03-14T09:26:53.589Z');
let site: FakeWebServer;
let pdf: Uint8Array;
const runtimes: ServerToolRuntime[] = [];

beforeAll(async () => {
  pdf = await makePdf({ title: 'Annual report 2025', pages: [['Annual report 2025', 'Revenue grew by twelve percent.'], ['Outlook', 'We expect steady growth in 2026.']] });
  site = await startFakeWebServer({
    '/article': serve('text/html; charset=utf-8', ARTICLE),
    '/report.pdf': (_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf),
    '/notes.txt': serve('text/plain; charset=iso-8859-1', Buffer.from('Caf\xe9 notes', 'latin1')),
    '/data.json': serve('application/json', '{"temperature": 21.5}'),
    '/image.png': serve('image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47])),
    '/big': serve('text/plain', 'x'.repeat(5_000)),
    '/big-chunked': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 10; i += 1) res.write('y'.repeat(500));
      res.end();
    },
    '/never': () => undefined,
    '/stalls': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first part');
    },
    '/missing': (_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>'),
    '/r1': redirect('/r2', 301),
    '/r2': redirect('/r3', 308),
    '/r3': redirect('/article'),
  });
});

afterAll(async () => {
  await Promise.all(runtimes.map((runtime) => runtime.close()));
  await site.close();
});

async function fetchPage(url: string, options: { webFetch?: Record<string, unknown>; entry?: Record<string, unknown>; signal?: AbortSignal } = {}): Promise<GatewayToolOutcome> {
  const config = serverToolsConfig({ web_fetch: { private_network_allowlist: ['127.0.0.1', 'site.test', 'other.test'], ...options.webFetch } });
  const resolve = fixedResolver({ 'site.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] });
  const { context, runtime } = toolContext(config, { resolve, now: () => PINNED, ...(options.signal ? { signal: options.signal } : {}) });
  runtimes.push(runtime);
  const call = callOf(toolOf(config, { type: 'gateway:web_fetch', ...options.entry }), { url });
  expectSpecBlock(clientToolUseBlock(call));
  const outcome = await executeGatewayTool(call, context);
  expectSpecBlock(outcome.clientResult);
  return outcome;
}

function documentText(outcome: GatewayToolOutcome): string {
  const content = (outcome.clientResult as { content: { content?: { source?: { data?: string } } } }).content;
  return content.content?.source?.data ?? '';
}

function errorCode(outcome: GatewayToolOutcome): string | undefined {
  return (outcome.clientResult as { content: { error_code?: string } }).content.error_code;
}

describe('gateway:web_fetch reads pages', () => {
  it('an HTML page becomes its article as readable text, without navigation, scripts or footer', async () => {
    const outcome = await fetchPage(`${site.origin}/article`);
    expect(outcome.isError).toBe(false);
    const text = documentText(outcome);
    // Readability gives the article's heading as the title, not as text.
    expect(text.startsWith('The Atlantic coast sees two high tides a day.')).toBe(true);
    expect(text).toContain('## Why the bay is special');
    expect(text).toContain('in the Bay of Fundy the difference between low and high water reaches sixteen metres.');
    expect(text).toContain('- Highest tides in the world\n\n- Twice a day');
    expect(text).toMatch(/sixteen metres\.\n\n## Why the bay is special\n\nThe bay's natural period/);
    for (const noise of ['Log in', 'window.tracking', 'color: red', 'Copyright', 'Privacy']) expect(text).not.toContain(noise);
    expect(outcome.clientResult).toEqual({
      type: 'web_fetch_tool_result',
      tool_use_id: outcome.toolUseId,
      content: {
        type: 'web_fetch_result',
        url: `${site.origin}/article`,
        retrieved_at: '2026-03-14T09:26:53.589Z',
        content: { type: 'document', title: 'Tides of the Atlantic | Ocean News', source: { type: 'text', media_type: 'text/plain', data: text }, citations: null },
      },
    });
    expect(outcome.modelText).toBe(`Title: Tides of the Atlantic | Ocean News\nURL: ${site.origin}/article\n\n${text}`);
    expect(outcome.modelContent).toEqual([{ type: 'text', text: outcome.modelText }]);
    expect(outcome.usage).toEqual({ web_fetch_requests: 1 });
  });

  it('a PDF becomes the text of its pages, titled from its metadata', async () => {
    const outcome = await fetchPage(`${site.origin}/report.pdf`);
    expect(outcome.isError).toBe(false);
    expect(documentText(outcome)).toMatch(/Annual report 2025\s+Revenue grew by twelve percent\.\n\nOutlook\s+We expect steady growth in 2026\./);
    expect(outcome.modelText.startsWith(`Title: Annual report 2025\nURL: ${site.origin}/report.pdf\n\n`)).toBe(true);
  });

  it('plain text is decoded with its charset, JSON kept as it is', async () => {
    expect(documentText(await fetchPage(`${site.origin}/notes.txt`))).toBe('Café notes');
    expect(documentText(await fetchPage(`${site.origin}/data.json`))).toBe('{"temperature": 21.5}');
  });

  it('follows redirects and reports the final URL', async () => {
    const outcome = await fetchPage(`http://site.test:${site.port}/r1`);
    expect(outcome.isError).toBe(false);
    expect((outcome.clientResult as { content: { url: string } }).content.url).toBe(`http://site.test:${site.port}/article`);
  });

  it('cuts text beyond max_content_chars, saying so', async () => {
    const outcome = await fetchPage(`${site.origin}/big`, { entry: { max_content_chars: 100 } });
    expect(documentText(outcome)).toBe(`${'x'.repeat(100)}\n\n[Content truncated at 100 characters.]`);
  });
});

describe('gateway:web_fetch limits', () => {
  it.each([
    ['a body over the size cap (Content-Length)', '/big', 'content_too_large', 'the content is larger than 1000 bytes'],
    ['a chunked body over the size cap', '/big-chunked', 'content_too_large', 'the content is larger than 1000 bytes'],
    ['a content type outside the allowlist', '/image.png', 'unsupported_content_type', 'image/png is not a content type the gateway fetches'],
    ['an HTTP error', '/missing', 'url_not_accessible', 'answered HTTP 404'],
    ['a server that never answers', '/never', 'url_not_accessible', 'timed out after 400 ms'],
    ['a body that stalls', '/stalls', 'url_not_accessible', 'timed out after 400 ms'],
    ['more redirects than allowed', '/r1', 'url_not_accessible', 'too many redirects (more than 2)'],
  ])('%s is an error result', async (_name, path, code, message) => {
    const started = Date.now();
    const outcome = await fetchPage(`${site.origin}${path}`, { webFetch: { max_bytes: 1_000, timeout_ms: 400, max_redirects: 2 } });
    expect(outcome.isError).toBe(true);
    expect(errorCode(outcome)).toBe(code);
    expect(outcome.modelText).toContain(message);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('a text type outside a narrowed allowlist is refused', async () => {
    const outcome = await fetchPage(`${site.origin}/data.json`, { webFetch: { content_types: ['text/html'] } });
    expect(errorCode(outcome)).toBe('unsupported_content_type');
  });

  it('allowed_domains and blocked_domains of the request', async () => {
    const onlySite = { entry: { allowed_domains: ['site.test'] } };
    expect((await fetchPage(`http://site.test:${site.port}/notes.txt`, onlySite)).isError).toBe(false);
    const other = await fetchPage(`http://other.test:${site.port}/notes.txt`, onlySite);
    expect(errorCode(other)).toBe('url_not_allowed');
    expect(other.modelText).toContain("other.test is not among this request's allowed domains");
    const blocked = await fetchPage(`http://site.test:${site.port}/notes.txt`, { entry: { blocked_domains: ['site.test'] } });
    expect(blocked.modelText).toContain('site.test is a blocked domain for this request');
  });

  it('an invalid URL is invalid_tool_input; a missing one too', async () => {
    expect(errorCode(await fetchPage('not a url'))).toBe('invalid_tool_input');
    const config = serverToolsConfig();
    const { context, runtime } = toolContext(config);
    runtimes.push(runtime);
    const outcome = await executeGatewayTool(callOf(toolOf(config, { type: 'gateway:web_fetch' }), { link: 'https://example.com' }), context);
    expect(outcome.modelText).toBe('Error (invalid_tool_input): the input must be {"url": "<absolute http or https URL>"}');
  });

  it('a request that is cancelled (client gone, time budget spent) stops the fetch with an error result', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const outcome = await fetchPage(`${site.origin}/never`, { signal: controller.signal, webFetch: { timeout_ms: 10_000 } });
    expect(outcome.isError).toBe(true);
    expect(outcome.modelText).toContain('the request was cancelled');
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
