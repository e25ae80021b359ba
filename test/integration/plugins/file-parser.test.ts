/**
 * The `file-parser` plugin over HTTP with a real PDF the test writes with pdf-lib: sent as text to an OpenAI
 * Chat Completions upstream whose model lacks PDF input (and made eligible under `require_parameters`), given
 * natively to an endpoint that reads PDFs, found inside tool results, and refused with a 400 naming the block
 * when corrupt.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { makePdf } from '#test/helpers/fake-tool-servers/make-pdf.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { WITH_METADATA, anthropicProviderYaml, catalogYaml, errorMessage, metadataOf, postMessage } from '#test/integration/routing/routing-support.ts';

let chat: FakeUpstream;
let anthropic: FakeUpstream;
let gateway: TestGateway;
let pdf: string;

const LINES = ['Invoice 2026-117', 'Total due: 1,234.56 EUR', 'Payable within 30 days'];

beforeAll(async () => {
  [chat, anthropic] = await Promise.all([startFakeOpenAiChat(), startFakeAnthropic()]);
  pdf = Buffer.from(await makePdf({ title: 'Invoice 117', pages: [LINES.slice(0, 2), LINES.slice(2)] })).toString('base64');
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [`  openai: { family: openai-chat, base_url: "${chat.baseURL}", api_key: "sk-openai-shared-0001" }`, anthropicProviderYaml('alpha', anthropic)],
      [
        '  openai/text-only:',
        '    context_length: 128000',
        '    capabilities: { tools: true, vision: true, pdf: false, thinking: false, caching: false, structured_output: true }',
        '    endpoints: [{ provider: openai, model: gpt-text-only, pricing: { input: 1, output: 2 } }]',
        '  test/reads-pdf:',
        '    context_length: 200000',
        '    capabilities: { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true }',
        '    endpoints: [{ provider: alpha, model: claude-reads-pdf, pricing: { input: 1, output: 2 } }]',
      ],
    ),
  });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([chat?.close(), anthropic?.close()]);
});
beforeEach(() => {
  chat.clear();
  anthropic.clear();
});

function pdfBlock(data = pdf) {
  return { type: 'document', title: 'invoice.pdf', source: { type: 'base64', media_type: 'application/pdf', data } };
}

function body(model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model,
    max_tokens: 64,
    session_id: randomUUID(),
    messages: [{ role: 'user', content: [pdfBlock(), { type: 'text', text: 'What is the total?' }] }],
    ...extra,
  };
}

describe('file-parser', () => {
  it('sends a PDF as its text to an OpenAI-format upstream whose model lacks PDF input', async () => {
    chat.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, body('openai/text-only', { plugins: [{ id: 'file-parser', pdf: { engine: 'pdf-text' } }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const sent = chat.lastRequest()?.rawBody ?? '';
    for (const line of LINES) expect(sent).toContain(line);
    expect(sent).toContain('invoice.pdf');
    expect(sent).not.toContain(pdf.slice(0, 40));
    expect(sent).not.toContain('application/pdf');
    expect(metadataOf(call) as unknown).toMatchObject({ plugins: [{ id: 'file-parser', engine: 'pdf-text', documents_as_text: 1, documents_native: 0 }] });
  });

  it('makes PDF-less endpoints eligible under provider.require_parameters', async () => {
    const strict = { provider: { require_parameters: true } };
    const without = await postMessage(gateway, body('openai/text-only', strict));
    expect(without.status).toBe(404);
    expect(errorMessage(without)).toMatch(/no endpoint of openai\/text-only supports every parameter the request uses \(pdf\)/);

    chat.enqueue(reply.fixture('openai-text'));
    const withPlugin = await postMessage(gateway, body('openai/text-only', { ...strict, plugins: [{ id: 'file-parser' }] }));
    expect(withPlugin.status, JSON.stringify(withPlugin.body)).toBe(200);
    expect(chat.lastRequest()?.rawBody).toContain(LINES[1]);
  });

  it('gives an endpoint that reads PDFs the PDF itself with the native engine, and the text with pdf-text', async () => {
    anthropic.enqueue(reply.fixture('anthropic-text'), reply.fixture('anthropic-text'));
    const native = await postMessage(gateway, body('test/reads-pdf', { plugins: [{ id: 'file-parser' }] }), WITH_METADATA);
    expect(native.status, JSON.stringify(native.body)).toBe(200);
    const nativeBlock = (anthropic.lastRequest()?.body as { messages: { content: unknown[] }[] }).messages[0]?.content[0];
    expect(nativeBlock).toEqual(pdfBlock());
    expect(metadataOf(native) as unknown).toMatchObject({ plugins: [{ id: 'file-parser', engine: 'native', documents_as_text: 0, documents_native: 1 }] });

    await postMessage(gateway, body('test/reads-pdf', { plugins: [{ id: 'file-parser', pdf: { engine: 'pdf-text' } }] }));
    const textBlock = (anthropic.lastRequest()?.body as { messages: { content: { source: { type: string; data: string } }[] }[] }).messages[0]?.content[0];
    expect(textBlock?.source.type).toBe('text');
    expect(textBlock?.source.data).toContain(LINES[0]);
  });

  it('reads a PDF inside a tool result', async () => {
    chat.enqueue(reply.fixture('openai-text'));
    const messages = [
      { role: 'user', content: 'Fetch the invoice.' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_pdf', name: 'fetch_invoice', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_pdf', content: [pdfBlock()] }] },
    ];
    const tools = [{ name: 'fetch_invoice', description: 'Fetches the invoice', input_schema: { type: 'object', properties: {} } }];
    const call = await postMessage(gateway, body('openai/text-only', { messages, tools, plugins: [{ id: 'file-parser' }] }));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(chat.lastRequest()?.rawBody).toContain(LINES[2]);
  });

  it('counts tokens (POST /messages/count_tokens) as the model would read the request: the PDF as its text', async () => {
    const post = async (model: string, extra: Record<string, unknown> = {}) => {
      const { max_tokens: _max, session_id: _session, ...request } = body(model, extra);
      return fetch(`${gateway.baseUrl}/messages/count_tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
    };
    const count = async (model: string, extra: Record<string, unknown> = {}) => {
      const response = await post(model, extra);
      expect(response.status).toBe(200);
      return ((await response.json()) as { input_tokens: number }).input_tokens;
    };
    // Without the plugin the model cannot read the PDF: the count is the message's 400, which names the plugin.
    const unread = await post('openai/text-only');
    expect(unread.status).toBe(400);
    expect(JSON.stringify(await unread.json())).toContain('the file-parser plugin reads PDFs into text');
    // With it, the PDF is counted as its text: a few dozen characters.
    expect(await count('openai/text-only', { plugins: [{ id: 'file-parser', pdf: { engine: 'pdf-text' } }] })).toBeLessThan(100);
    // An upstream that counts for itself is asked about the request the message would send it.
    await count('test/reads-pdf', { plugins: [{ id: 'file-parser', pdf: { engine: 'pdf-text' } }] });
    const counted = JSON.stringify(anthropic.lastRequest().body);
    expect(anthropic.lastRequest().operation).toBe('count_tokens');
    expect(counted).toContain('Total due: 1,234.56 EUR');
    expect(counted).not.toContain('application/pdf');
  });

  it('counts tokens under provider.require_parameters on an endpoint without PDF input, as the message is served there', async () => {
    const { max_tokens: _max, session_id: _session, ...request } = body('openai/text-only', { provider: { require_parameters: true }, plugins: [{ id: 'file-parser' }] });
    const response = await fetch(`${gateway.baseUrl}/messages/count_tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });

    const counted = (await response.json()) as { input_tokens?: number };
    expect(response.status, JSON.stringify(counted)).toBe(200);
    // The PDF's text (a few dozen characters), not the 3,000 tokens a page the PDF itself is estimated at.
    expect(counted.input_tokens).toBeLessThan(100);
    expect(chat.requests).toHaveLength(0);
  });

  it('answers 400 naming the block of a corrupt PDF, before any upstream call', async () => {
    const corrupt = Buffer.from('%PDF-1.7\nthis is not really a PDF at all\n%%EOF').toString('base64');
    const messages = [{ role: 'user', content: [{ type: 'text', text: 'Read this.' }, pdfBlock(corrupt)] }];
    const call = await postMessage(gateway, body('openai/text-only', { messages, plugins: [{ id: 'file-parser' }] }));

    expect(call.status).toBe(400);
    expect(errorMessage(call)).toBe('Invalid request parameters: messages[0].content[1] is not a readable PDF document');
    expect(call.body.error).toMatchObject({ details: { error_code: 'invalid_request_parameters', parameters: [{ path: '/body/messages/0/content/1', message: 'is not a readable PDF document' }] } });
    expect(chat.requests).toHaveLength(0);
  });
});
