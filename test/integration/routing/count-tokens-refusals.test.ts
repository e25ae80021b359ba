/**
 * `count_tokens` refuses what `POST /messages` refuses for the same model, as Anthropic's own count_tokens
 * does: one table of bodies is sent to both endpoints and their statuses compared. On translated-only models
 * (Groq's qwen3-32b here, text-only in one model and next to a vision endpoint in the other) that covers the
 * readable-media check (an image or PDF no endpoint can read), the translators' checks (an unknown top-level
 * field, block type or block property, `thread`), the gateway-tool configuration and `fallbacks` with
 * `models`. A body both answer is counted without any upstream call (the gateway's estimate).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { postMessage, resetFakes, type MessageCall } from '#test/integration/routing/routing-support.ts';
import { IMAGE, PDF, startVisionEndpointsGateway, TEXT_FIRST } from './vision-endpoints-support.ts';

let textUpstream: FakeUpstream;
let visionUpstream: FakeUpstream;
let gateway: TestGateway;


beforeAll(async () => {
  ({ textUpstream, visionUpstream, gateway } = await startVisionEndpointsGateway({ groq: 'gsk-count-refusals-0001', vision: 'sk-house-vision-0002' }));
});

afterAll(async () => {
  await gateway?.close();
  await textUpstream?.close();
  await visionUpstream?.close();
});

beforeEach(() => resetFakes(textUpstream, visionUpstream));

/** The counted body and the message body of one case: the same fields, the message with its `max_tokens`. */
function userTurn(...blocks: Record<string, unknown>[]): Record<string, unknown>[] {
  return [{ role: 'user', content: [{ type: 'text', text: 'What is in this?' }, ...blocks] }];
}

interface Case {
  name: string;
  body: Record<string, unknown>;
  status: number;
  /** What the 400 names. */
  names?: string;
  /** The upstream that answers the message. */
  answers?: 'text' | 'vision';
}

const CASES: Case[] = [
  { name: 'plain text on a text-only model', body: { model: 'test/text-only', messages: userTurn() }, status: 200, answers: 'text' },
  { name: 'an image on a text-only model', body: { model: 'test/text-only', messages: userTurn(IMAGE) }, status: 400, names: 'messages[0].content[1] is an image' },
  { name: 'a PDF on a text-only model', body: { model: 'test/text-only', messages: userTurn(PDF) }, status: 400, names: 'messages[0].content[1] is a PDF document' },
  { name: 'an image on a model with a vision endpoint after a text-only one', body: { model: 'test/mixed', messages: userTurn(IMAGE), ...TEXT_FIRST }, status: 200, answers: 'vision' },
  {
    name: 'an image with gateway tools on a text-only model',
    body: { model: 'test/text-only', messages: userTurn(IMAGE), tools: [{ type: 'gateway:datetime' }] },
    status: 400,
    names: 'messages[0].content[1] is an image',
  },
  { name: 'an unknown top-level field', body: { model: 'test/text-only', messages: userTurn(), mcp_servers: [{ type: 'url', url: 'https://mcp.example.invalid', name: 'x' }] }, status: 400, names: 'field mcp_servers' },
  { name: 'an unknown block type', body: { model: 'test/text-only', messages: userTurn({ type: 'container_upload', file_id: 'file_011' }) }, status: 400, names: 'container_upload' },
  { name: 'an unknown property of a text block', body: { model: 'test/text-only', messages: userTurn({ type: 'text', text: 'more', highlight: true }) }, status: 400, names: 'messages[0].content[1].highlight' },
  { name: 'thread', body: { model: 'test/text-only', messages: userTurn(), thread: { type: 'create' } }, status: 400, names: 'field thread' },
  { name: 'a gateway tool with a bad setting', body: { model: 'test/text-only', messages: userTurn(), tools: [{ type: 'gateway:datetime', timezone: 'Mars/Olympus_Mons' }] }, status: 400, names: 'Mars/Olympus_Mons' },
  { name: '`fallbacks` with `models`', body: { model: 'test/text-only', messages: userTurn(), fallbacks: [{ model: 'test/mixed' }], models: ['test/mixed'] }, status: 400, names: '`fallbacks` cannot be combined with `models`' },
];

async function countTokens(body: Record<string, unknown>): Promise<MessageCall> {
  const response = await fetch(`${gateway.baseUrl}/messages/count_tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

function errorOf(call: MessageCall): { type?: string; message?: string; details?: { error_code?: string } } {
  return (call.body.error ?? {}) as { type?: string; message?: string; details?: { error_code?: string } };
}

describe('count_tokens and messages answer the same body alike', () => {
  it.each(CASES)('$name: $status from both', async ({ body, status, names, answers }) => {
    if (answers) (answers === 'text' ? textUpstream : visionUpstream).enqueue(reply.fixture('openai-text'));
    const message = await postMessage(gateway, { ...body, max_tokens: 64 });
    const count = await countTokens(body);

    expect(message.status, JSON.stringify(message.body)).toBe(status);
    expect(count.status, JSON.stringify(count.body)).toBe(status);
    if (status === 200) {
      expect(typeof count.body.input_tokens).toBe('number');
      // The message was sent once; the count called nobody (a translated vendor is counted by the estimate).
      expect(textUpstream.requests.length + visionUpstream.requests.length).toBe(1);
      return;
    }
    expect(errorOf(count).type).toBe('invalid_request_error');
    expect(errorOf(count).message).toContain(names);
    expect(errorOf(count).message).toBe(errorOf(message).message);
    expect(textUpstream.requests).toHaveLength(0);
    expect(visionUpstream.requests).toHaveLength(0);
  });

  it('gives thread’s 400 the code on which Anthropic SDKs resend the conversation without it', async () => {
    const count = await countTokens({ model: 'test/text-only', messages: userTurn(), thread: { type: 'create' } });

    expect(count.status).toBe(400);
    expect(errorOf(count).details?.error_code).toBe('thread_unsupported_request');
  });

  it('ignores the fields that only shape a generation, as Anthropic’s count_tokens is sent none of them', async () => {
    const count = await countTokens({ model: 'test/text-only', messages: userTurn(), max_tokens: 0, stop_sequences: ['END'], temperature: 0.2 });

    expect(count.status, JSON.stringify(count.body)).toBe(200);
  });
});
