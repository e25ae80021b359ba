/**
 * A request's own MCP server credential (Anthropic's `mcp_servers[].authorization_token`, passed through to an
 * Anthropic-format upstream) is a secret like a provider key: an upstream that refuses it and quotes it, whole
 * or encoded, in a JSON error or in an error event inside a stream, must not carry it into the answer, the
 * log, the generation record (whose error is visible to every management key of the workspace) or the
 * webhook, OTLP and Langfuse deliveries. Driven with the Anthropic SDK.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { distinctiveKey } from '#test/helpers/credential-gateway.ts';
import { quotedInEveryForm } from '#test/helpers/secret-forms.ts';
import { anthropicClient, messageBody } from '#test/integration/routing/routing-support.ts';
import { leaks, sinkTexts, startSinkGateway, type SinkGateway } from '#test/integration/server-tools/loop/secret-sinks.ts';

const TOKEN = `${distinctiveKey('requestmcptoken')}/+Zq`;
const MCP_SERVERS = [{ type: 'url', url: 'https://mcp.example.com/sse', name: 'crm', authorization_token: TOKEN }];
const REFUSAL = `The MCP server crm refused the authorization token: ${quotedInEveryForm(TOKEN)}`;

let setup: SinkGateway;
const answers: unknown[] = [];

beforeAll(async () => {
  setup = await startSinkGateway([]);
});

afterAll(async () => {
  await setup?.close();
});

/** The request's answer: the SDK's error for a refused request, or the stream's events. */
async function send(stream: boolean): Promise<unknown> {
  const client = anthropicClient(setup.gateway);
  const body = { ...messageBody('test/claude'), mcp_servers: MCP_SERVERS } as never;
  if (!stream) return client.messages.create(body).catch((error: unknown) => error);
  const events: unknown[] = [];
  try {
    for await (const event of client.messages.stream(body)) events.push(event);
  } catch (error) {
    events.push(error);
  }
  return events;
}

/** What the client read, as text: an SDK error's message is not enumerable. */
function readable(answer: unknown): unknown {
  if (Array.isArray(answer)) return answer.map(readable);
  return answer instanceof Error ? { error: answer.message } : answer;
}

describe.each([false, true])('an upstream refusing the request\'s MCP token, quoting it (stream: %s)', (stream) => {
  it('in a 400: the client reads why, without the token', async () => {
    setup.upstream.enqueue(reply.error(400, { message: REFUSAL }));
    const answer = await send(stream);
    answers.push(readable(answer));
    const error = (Array.isArray(answer) ? answer.at(-1) : answer) as InstanceType<typeof Anthropic.APIError>;
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.message).toContain('The MCP server crm refused the authorization token');
    expect(error.message).not.toContain(TOKEN);
  });
});

it('inside a stream, as an error event: the client reads that the upstream failed, without the token', async () => {
  setup.upstream.enqueue(reply.fixture('anthropic-text', { streamError: { afterEvents: 2, status: 400, message: REFUSAL } }));
  const answer = readable(await send(true));
  answers.push(answer);
  expect(JSON.stringify((answer as unknown[]).at(-1))).toContain('invalid_request_error');
  expect(JSON.stringify(answer)).not.toContain(TOKEN);
});

it('no form of the token is in the answers, the model\'s requests aside, the log, the records, the exports or /metrics', async () => {
  const texts = await sinkTexts(setup, answers, 3);
  // The upstream was sent the token: that is the request's own doing.
  const { 'the model\'s requests': sent, ...kept } = texts;
  expect(sent.includes(TOKEN)).toBe(true);
  expect(leaks({ ...kept, 'the model\'s requests': '' }, [TOKEN])).toEqual([]);
});
