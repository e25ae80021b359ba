/**
 * Every recent request feature the Anthropic SDK 1.14 types (anthropic-sdk-request-cases.ts), sent by the real
 * SDK (`client.beta.messages.create` and `.stream`, and `client.messages.create` where the non-beta params
 * type it) to the running gateway: an Anthropic-format upstream receives the very bytes the SDK sent with
 * only the model replaced (and a gateway field, where a row has one, applied); an OpenAI Chat upstream
 * receives the request expressed in its format, or the gateway answers the spec's 400 naming the field,
 * block or type it cannot express, without calling it. Never a 500, never a silently different request.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { GATEWAY_FIELD_COLLISIONS, REQUEST_CASES, type CaseParams, type RequestCase } from '#test/integration/http/anthropic-sdk-request-cases.ts';

const CLAUDE = 'audit/claude';
const CLAUDE_UPSTREAM = 'claude-sonnet-4-5';
const GPT = 'audit/gpt';

let anthropic: FakeUpstream;
let openai: FakeUpstream;
let gateway: TestGateway;
let client: Anthropic;
/** The bodies the SDK put on the wire, in order: the reference for byte equality. */
const sdkBodies: string[] = [];

beforeAll(async () => {
  anthropic = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
  openai = await startFakeOpenAiChat({ whenEmpty: reply.fixture('openai-text') });
  const catalogYaml = [
    'providers:',
    '  ollama: { enabled: false }',
    `  anthropic: { base_url: "${anthropic.url}", api_key: "sk-ant-request-audit-0001" }`,
    `  openai: { family: openai-chat, base_url: "${openai.baseURL}", api_key: "sk-openai-request-audit-0001" }`,
    'models:',
    `  ${CLAUDE}:`,
    '    endpoints:',
    `      - { provider: anthropic, model: ${CLAUDE_UPSTREAM}, pricing: { input: 3, output: 15 } }`,
    `  ${GPT}:`,
    '    capabilities: { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true }',
    '    endpoints:',
    '      - { provider: openai, model: gpt-4.1-mini, pricing: { input: 0.4, output: 1.6 } }',
    '',
  ].join('\n');
  gateway = await startTestGateway({ catalogYaml });
  client = new Anthropic({
    baseURL: `${gateway.origin}/api`,
    authToken: gateway.api_key,
    apiKey: null,
    maxRetries: 0,
    timeout: 10_000,
    fetch: async (url, init) => {
      sdkBodies.push(String(init?.body));
      return fetch(url, init);
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await anthropic?.close();
  await openai?.close();
});

type Call = 'beta.messages.create' | 'beta.messages.stream' | 'messages.create' | 'messages.stream';

function request(model: string, params: CaseParams): MessageCreateParamsNonStreaming {
  return { model, max_tokens: 256, messages: [{ role: 'user', content: 'Hi' }], ...params } as MessageCreateParamsNonStreaming;
}

/** Sends through the SDK as `call` does; resolves to the error the SDK raised, or null. */
async function send(call: Call, model: string, params: CaseParams): Promise<unknown> {
  const body = request(model, params);
  const sent = (async () => {
    switch (call) {
      case 'beta.messages.create':
        return client.beta.messages.create(body as never);
      case 'beta.messages.stream':
        return client.beta.messages.stream(body as never).finalMessage();
      case 'messages.create':
        return client.messages.create(body);
      case 'messages.stream':
        return client.messages.stream(body).finalMessage();
      default: {
        const unreachable: never = call;
        throw new Error(`unknown call ${String(unreachable)}`);
      }
    }
  })();
  return sent.then(
    () => null,
    (caught: unknown) => caught,
  );
}

function callsFor(entry: RequestCase): Call[] {
  return entry.stable ? ['beta.messages.create', 'beta.messages.stream', 'messages.create', 'messages.stream'] : ['beta.messages.create', 'beta.messages.stream'];
}

const rows = Object.entries(REQUEST_CASES).flatMap(([name, entry]) => callsFor(entry).map((call) => [name, call, entry] as const));

describe('an Anthropic-format upstream receives what the SDK sent, only the model replaced', () => {
  it.each(rows)('%s (%s)', async (_name, call, entry) => {
    const before = anthropic.requests.length;
    expect(await send(call, CLAUDE, entry.params)).toBeNull();
    expect(anthropic.requests).toHaveLength(before + 1);
    const sdkBody = JSON.parse(sdkBodies.at(-1) ?? '') as Record<string, unknown>;
    const expected = { ...(entry.upstreamBody ? entry.upstreamBody(sdkBody) : sdkBody), model: CLAUDE_UPSTREAM };
    const received = anthropic.lastRequest();
    if (entry.upstreamBody) expect(received?.body).toEqual(expected);
    // The SDK's own bytes, the model replaced in place: field order, spacing and escapes as the SDK wrote them.
    else expect(received?.rawBody).toBe(JSON.stringify(expected));
  });
});

describe('an OpenAI Chat upstream receives the request expressed, or the gateway answers a 400 naming what it cannot express', () => {
  it.each(rows)('%s (%s)', async (_name, call, entry) => {
    const before = openai.requests.length;
    const error = await send(call, GPT, entry.params);
    if ('refuses' in entry.translated) {
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      const apiError = error as InstanceType<typeof Anthropic.BadRequestError>;
      expect(apiError.status).toBe(400);
      expect(apiError.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: `Invalid request parameters: ${entry.translated.refuses}` } });
      // Anthropic's code where a client recovers on it, no details where the message says it all.
      const details = (apiError.error as { error?: { details?: unknown } }).error?.details;
      if (entry.translated.code) expect(details).toEqual({ error_code: entry.translated.code });
      expect(openai.requests, 'nothing is sent to a vendor that cannot express the request').toHaveLength(before);
      return;
    }
    expect(error).toBeNull();
    expect(openai.requests).toHaveLength(before + 1);
    const received = openai.lastRequest()?.body as Record<string, unknown>;
    expect(received).toMatchObject({ model: 'gpt-4.1-mini', ...entry.translated.sends });
    for (const name of entry.translated.notSent ?? []) expect(received, `${name} is not sent`).not.toHaveProperty(name);
  });
});

describe("Anthropic's forms of a field the gateway reads as its own", () => {
  const collisions = Object.entries(GATEWAY_FIELD_COLLISIONS).flatMap(([name, entry]) => [CLAUDE, GPT].map((model) => [name, model, entry] as const));

  it.each(collisions)('%s on %s answers the 400 naming it, calling no upstream', async (_name, model, entry) => {
    const before = anthropic.requests.length + openai.requests.length;
    const error = await send('beta.messages.create', model, entry.params);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ error: { type: 'invalid_request_error', message: entry.message } });
    expect(anthropic.requests.length + openai.requests.length).toBe(before);
  });
});

describe('no answer of the audit was a server error', () => {
  it('logged no 500', () => {
    // The error middleware logs every 5xx it renders as `request failed` (an image URL no parser reads was one).
    expect(gateway.logs.filter((line) => line.includes('"status":500') || line.includes('Internal Server Error') || line.includes('request failed'))).toEqual([]);
  });
});
