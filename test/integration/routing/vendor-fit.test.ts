/**
 * How the gateway fits a request to each vendor, over HTTP: an endpoint whose vendor lacks a feature the
 * request uses is skipped for one that has it (and is a 400 naming the feature when none has it); an
 * exhausted provider account lets the next key answer; `speed: fast` reaches Anthropic as fast mode at the
 * fast price; a malformed block is reported by its one relevant complaint.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, errorMessage, messageBody, metadataOf, modelYaml, postMessage, resetFakes, WITH_METADATA } from './routing-support.ts';

let chat: FakeUpstream;
let alpha: FakeUpstream;
let beta: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  [chat, alpha, beta] = await Promise.all([startFakeOpenAiChat(), startFakeAnthropic(), startFakeAnthropic()]);
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [
        `  chatty: { family: openai-compatible, display_name: Chatty, base_url: "${chat.baseURL}", api_key: "sk-chatty-shared-0001" }`,
        anthropicProviderYaml('alpha', alpha),
        anthropicProviderYaml('beta', beta),
      ],
      [
        modelYaml('test/mixed', [
          { provider: 'chatty', model: 'up-chatty', price: [1, 2] },
          { provider: 'alpha', model: 'up-alpha', price: [1, 2] },
        ]),
        modelYaml('test/chat-only', [{ provider: 'chatty', model: 'up-chatty', price: [1, 2] }]),
        modelYaml('test/fast', [{ provider: 'alpha', model: 'up-fast', price: [5, 25], extra: 'fast: { pricing: { input: 30, output: 150 } }' }]),
        modelYaml('test/two-keys', [
          { provider: 'alpha', model: 'up-alpha', price: [1, 2] },
          { provider: 'beta', model: 'up-beta', price: [1, 2] },
        ]),
      ],
    ),
  });
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([chat?.close(), alpha?.close(), beta?.close()]);
});

beforeEach(() => resetFakes(chat, alpha, beta));

const WEB_SEARCH = { type: 'web_search_20250305', name: 'web_search', max_uses: 2 };

describe('a feature only some vendors have', () => {
  it('skips the endpoint whose vendor lacks it and is served by one that has it; nothing reaches the first', async () => {
    alpha.enqueue(reply.fixture('anthropic-text'));
    const body = messageBody('test/mixed', { tools: [WEB_SEARCH], provider: { order: ['chatty', 'alpha'] } });
    const call = await postMessage(gateway, body, WITH_METADATA);

    expect(call.status).toBe(200);
    expect(chat.requests).toHaveLength(0);
    expect(alpha.lastRequest()?.body).toMatchObject({ tools: [WEB_SEARCH] });
    expect(metadataOf(call).attempts.map((attempt) => attempt.status)).toEqual(['unsupported', 'success']);
  });

  it('is a 400 naming the feature when no endpoint can serve it', async () => {
    const call = await postMessage(gateway, messageBody('test/chat-only', { tools: [WEB_SEARCH] }));

    expect(call.status).toBe(400);
    expect(call.body.error).toMatchObject({ type: 'invalid_request_error', code: 400 });
    expect(errorMessage(call)).toContain('web_search_20250305');
    // This gateway has no search backend to run the tool itself: the answer says so.
    expect(errorMessage(call)).toContain('tools[0].type: web_search_20250305 cannot be served for test/chat-only: none of its endpoints is Anthropic-format (which runs the tool itself) and this gateway has no search backend configured (server_tools.web_search) to run it');
    expect(chat.requests).toHaveLength(0);
  });
});

describe('an exhausted provider account', () => {
  it('lets the next provider answer instead of failing the request', async () => {
    alpha.enqueue(reply.error(400, { message: 'Your credit balance is too low to access the Anthropic API.' }));
    beta.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, messageBody('test/two-keys', { provider: { order: ['alpha', 'beta'] } }), WITH_METADATA);

    expect(call.status).toBe(200);
    expect(metadataOf(call).attempts.map((attempt) => [attempt.status, attempt.http_status])).toEqual([
      ['authentication', 400],
      ['success', 200],
    ]);
  });
});

describe('speed: fast', () => {
  it('asks Anthropic for fast mode with its beta flag and prices the answer at the fast rates', async () => {
    alpha.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, messageBody('test/fast', { speed: 'fast' }), { 'anthropic-beta': 'interleaved-thinking-2025-05-14' });

    expect(call.status).toBe(200);
    const sent = alpha.lastRequest();
    expect(sent?.body).toMatchObject({ speed: 'fast', model: 'up-fast' });
    expect(sent?.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14,fast-mode-2026-02-01');
    const usage = call.body.usage as { input_tokens: number; output_tokens: number; cost: number };
    expect(usage.cost).toBeCloseTo((usage.input_tokens * 30 + usage.output_tokens * 150) / 1e6, 12);
  });

  it('stays at standard speed and price otherwise', async () => {
    alpha.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, messageBody('test/fast'));

    expect(alpha.lastRequest()?.body).not.toHaveProperty('speed');
    const usage = call.body.usage as { input_tokens: number; output_tokens: number; cost: number };
    expect(usage.cost).toBeCloseTo((usage.input_tokens * 5 + usage.output_tokens * 25) / 1e6, 12);
  });
});

describe('a malformed content block', () => {
  it.each([
    ['an image source without its data', { type: 'image', source: { type: 'base64', media_type: 'image/png' } }, '/body/messages/0/content/0/source/data', "must have required property 'data'", 'messages[0].content[0].source (type base64)'],
    ['a text block without text', { type: 'text' }, '/body/messages/0/content/0/text', "must have required property 'text'", 'messages[0].content[0] (type text)'],
    ['a tool_result without tool_use_id', { type: 'tool_result', content: 'ok' }, '/body/messages/0/content/0/tool_use_id', "must have required property 'tool_use_id'", 'messages[0].content[0] (type tool_result)'],
  ])('(%s) is reported by the one complaint that explains it, not every block type it is not', async (_name, block, path, message, owner) => {
    const call = await postMessage(gateway, messageBody('test/mixed', { messages: [{ role: 'user', content: [block] }] }));

    expect(call.status).toBe(400);
    expect(call.body.error).toMatchObject({ message: `Invalid request parameters: ${owner} ${message}`, details: { error_code: 'invalid_request_parameters', parameters: [{ path, message }] } });
    expect(chat.requests).toHaveLength(0);
    expect(alpha.requests).toHaveLength(0);
  });
});
