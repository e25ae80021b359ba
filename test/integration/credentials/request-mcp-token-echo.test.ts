/**
 * A request's own MCP server credential (Anthropic's `mcp_servers[].authorization_token`, passed through to an
 * Anthropic-format upstream) is a secret like a provider key: an upstream that refuses it and quotes it, whole
 * or encoded, in a JSON error or in an error event inside a stream, must not carry it into the answer, the
 * log, the generation record (whose error is visible to every management key of the workspace) or the
 * webhook, OTLP and Langfuse deliveries. Nor may the record's completion (or those deliveries) keep it when the
 * request's MCP server quoted it in a result the upstream's MCP connector passed on. Driven with the Anthropic SDK.
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

it('in the MCP connector\'s result of a served answer (the server quoting it): the client gets the answer as sent', async () => {
  const blocks = [
    { type: 'mcp_tool_use', id: 'mcptoolu_01', name: 'whoami', server_name: 'crm', input: {} },
    { type: 'mcp_tool_result', tool_use_id: 'mcptoolu_01', is_error: false, content: [{ type: 'text', text: `Signed in with ${quotedInEveryForm(TOKEN)}` }] },
    { type: 'text', text: 'You are signed in.' },
  ];
  setup.upstream.enqueue(reply.json({ id: 'msg_mcp_01', type: 'message', role: 'assistant', model: 'up-claude', content: blocks, stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 20, output_tokens: 9 } }));
  const message = await anthropicClient(setup.gateway).messages.create({ ...messageBody('test/claude'), mcp_servers: MCP_SERVERS } as never);
  // The client's own token, in its own server's words, reaches the client: only what the gateway keeps must not hold it.
  expect(JSON.stringify(message.content)).toContain('Signed in with');
});

it('no form of the token is in the answers, the model\'s requests aside, the log, the records, the exports or /metrics', async () => {
  const texts = await sinkTexts(setup, answers, 4);
  // The upstream was sent the token: that is the request's own doing.
  const { 'the model\'s requests': sent, ...kept } = texts;
  expect(sent.includes(TOKEN)).toBe(true);
  expect(leaks({ ...kept, 'the model\'s requests': '' }, [TOKEN])).toEqual([]);
});
