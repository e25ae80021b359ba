/**
 * Context length over HTTP: a conversation too long for `test/small` (context 600 tokens) is compressed
 * middle-out with the `context-compression` plugin (head, last turn and tool pairs kept, the count removed in
 * the metadata); a fallback to `test/large` receives the prompt uncompressed; without the plugin the small
 * endpoint is skipped for the large one, and with nothing larger the answer is a 400 before any upstream call.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { estimateInputTokens } from '#src/request/estimate-input-tokens.ts';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { WITH_METADATA, anthropicProviderYaml, catalogYaml, errorMessage, metadataOf, postMessage } from '#test/integration/routing/routing-support.ts';

let small: FakeUpstream;
let large: FakeUpstream;
let gateway: TestGateway;

// 400 characters: 100 tokens by the gateway's estimate.
const pad = (label: string) => `${label} ${'.'.repeat(399 - label.length)}`;

// A note Claude Code puts in user turns, beside tool results too.
const REMINDER = '<system-reminder>The task tools have not been used recently.</system-reminder>';

/** Nine turns of 100 tokens each; turns 3 and 4 are a tool call and its result. */
const CONVERSATION = [
  { role: 'user', content: pad('u0 first question') },
  { role: 'assistant', content: pad('a1') },
  { role: 'user', content: pad('u2') },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'lookup', input: { q: '.'.repeat(376) } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: pad('u4 result') }] },
  { role: 'assistant', content: pad('a5') },
  { role: 'user', content: pad('u6') },
  { role: 'assistant', content: pad('a7') },
  { role: 'user', content: pad('u8 last question') },
];

// A session per request, so that no sticky pin from an earlier test reorders the plan.
function body(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'test/small', max_tokens: 100, system: 'S'.repeat(100), messages: CONVERSATION, session_id: randomUUID(), ...extra };
}

/** The gateway's estimate of the whole conversation, as the 400 and the metadata state it. */
const WHOLE = estimateInputTokens({ system: 'S'.repeat(100), messages: CONVERSATION } as MessageRequest);

function model(slug: string, provider: string, contextLength: number): string {
  return [
    `  ${slug}:`,
    `    context_length: ${contextLength}`,
    '    capabilities: { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true }',
    `    endpoints: [{ provider: ${provider}, model: ${slug.split('/')[1]}, pricing: { input: 1, output: 2 } }]`,
  ].join('\n');
}

beforeAll(async () => {
  [small, large] = await Promise.all([startFakeAnthropic(), startFakeAnthropic()]);
  gateway = await startTestGateway({
    catalogYaml: catalogYaml([anthropicProviderYaml('alpha', small), anthropicProviderYaml('beta', large)], [model('test/small', 'alpha', 600), model('test/large', 'beta', 200_000)]),
  });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([small?.close(), large?.close()]);
});
beforeEach(() => {
  small.clear();
  large.clear();
});

/** The first words of each message an upstream received (its label), tool blocks by their type and id. */
function labels(request: { body: unknown } | undefined): string[] {
  const messages = (request?.body as { messages: { content: unknown }[] }).messages;
  return messages.map((message) => {
    if (typeof message.content === 'string') return message.content.split(' ')[0] as string;
    const [block] = message.content as { type: string; id?: string; tool_use_id?: string }[];
    return `${block?.type}:${block?.id ?? block?.tool_use_id}`;
  });
}

function pluginReports(call: { body: Record<string, unknown> }): unknown[] {
  return (metadataOf(call as never) as unknown as { plugins?: unknown[] }).plugins ?? [];
}

describe('context-compression', () => {
  it('removes messages from the middle until the prompt fits, keeping the head, the last turn and tool pairs', async () => {
    small.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, body({ plugins: [{ id: 'context-compression' }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    // About 925 tokens against a budget of 600 - 100: the middle unit (the tool pair) goes first, then u2, a5
    // and a1, outwards and older first, until 425 are left.
    expect(WHOLE).toBeGreaterThan(900);
    expect(labels(small.lastRequest())).toEqual(['u0', 'u6', 'a7', 'u8']);
    expect((small.lastRequest()?.body as { system: string }).system).toBe('S'.repeat(100));
    expect(pluginReports(call)).toEqual([{ id: 'context-compression', messages_removed: 5, context_length: 600, estimated_input_tokens: 425 }]);
  });

  it('never separates a tool call from its result', async () => {
    small.enqueue(reply.fixture('anthropic-text'));
    // max_tokens 300 leaves 300 tokens for the prompt: only the head and the last turn can stay.
    const call = await postMessage(gateway, body({ max_tokens: 300, plugins: [{ id: 'context-compression' }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(labels(small.lastRequest())).toEqual(['u0', 'u8']);
    expect(pluginReports(call)).toMatchObject([{ messages_removed: 7 }]);
  });

  it('keeps a tool pair that is not in the middle, whole', async () => {
    small.enqueue(reply.fixture('anthropic-text'));
    // The pair moved near the end: the middle turns go and the pair stays, both halves.
    const reordered = [CONVERSATION[0], CONVERSATION[1], CONVERSATION[2], CONVERSATION[5], CONVERSATION[6], CONVERSATION[3], CONVERSATION[4], CONVERSATION[7], CONVERSATION[8]];
    const call = await postMessage(gateway, body({ messages: reordered, max_tokens: 60, plugins: [{ id: 'context-compression' }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(labels(small.lastRequest())).toEqual(['u0', 'tool_use:toolu_01', 'tool_result:toolu_01', 'a7', 'u8']);
  });

  it('gives a fallback with a larger context the prompt uncompressed', async () => {
    small.enqueue(reply.error(529));
    large.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, body({ fallbacks: [{ model: 'test/large' }], plugins: [{ id: 'context-compression' }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(labels(small.lastRequest())).toEqual(['u0', 'u6', 'a7', 'u8']);
    expect(labels(large.lastRequest())).toEqual(['u0', 'a1', 'u2', 'tool_use:toolu_01', 'tool_result:toolu_01', 'a5', 'u6', 'a7', 'u8']);
    expect(call.body.model).toBe('test/large');
    expect(pluginReports(call)).toEqual([{ id: 'context-compression', messages_removed: 0, context_length: 200_000, estimated_input_tokens: WHOLE }]);
  });

  it('keeps the latest user prompt when tool turns follow it, removing older tool turns instead', async () => {
    small.enqueue(reply.fixture('anthropic-text'));
    // An agent's conversation (Claude Code's shape): the user's latest prompt, then the tool calls made for it.
    // The last tool pair is the most recent turn; the prompt it serves must stay, or the model loses its task.
    const agent = [
      CONVERSATION[0],
      CONVERSATION[1],
      { role: 'user', content: pad('u2 latest prompt') },
      CONVERSATION[3],
      CONVERSATION[4],
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_02', name: 'lookup', input: { q: '.'.repeat(376) } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_02', content: pad('u6 result') }] },
    ];
    const call = await postMessage(gateway, body({ messages: agent, plugins: [{ id: 'context-compression' }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(labels(small.lastRequest())).toEqual(['u0', 'u2', 'tool_use:toolu_02', 'tool_result:toolu_02']);
    expect(pluginReports(call)).toMatchObject([{ id: 'context-compression', messages_removed: 3 }]);
  });

  it('keeps the latest user prompt when the last tool result carries Claude Code\'s <system-reminder> notes', async () => {
    small.enqueue(reply.fixture('anthropic-text'));
    // Claude Code adds reminders beside its tool results: no words of the user, so u2 stays the prompt.
    const agent = [
      CONVERSATION[0],
      CONVERSATION[1],
      { role: 'user', content: pad('u2 latest prompt') },
      CONVERSATION[3],
      CONVERSATION[4],
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_02', name: 'lookup', input: { q: '.'.repeat(376) } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_02', content: pad('u6 result') }, { type: 'text', text: REMINDER }] },
    ];
    const call = await postMessage(gateway, body({ messages: agent, plugins: [{ id: 'context-compression' }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(labels(small.lastRequest())).toEqual(['u0', 'u2', 'tool_use:toolu_02', 'tool_result:toolu_02']);
  });

  it('weighs an earlier turn\'s thinking as the context check does (not at all), removing no more than needed', async () => {
    small.enqueue(reply.fixture('anthropic-text'));
    // a7 thought at length (1,000 tokens by the estimate) before its answer: Anthropic strips it from the
    // window, so the check leaves it out; removing the same units as without it must be enough.
    const thought = { role: 'assistant', content: [{ type: 'thinking', thinking: 'T'.repeat(4_000), signature: 'sig-a7' }, { type: 'text', text: pad('a7') }] };
    const withThinking = [...CONVERSATION.slice(0, 7), thought, CONVERSATION[8]];
    const call = await postMessage(gateway, body({ messages: withThinking, plugins: [{ id: 'context-compression' }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(labels(small.lastRequest())).toEqual(['u0', 'u6', 'thinking:undefined', 'u8']);
    expect(pluginReports(call)).toEqual([{ id: 'context-compression', messages_removed: 5, context_length: 600, estimated_input_tokens: 425 }]);
  });

  it('keeps the question an assistant prefill continues', async () => {
    small.enqueue(reply.fixture('anthropic-text'));
    const prefilled = [...CONVERSATION, { role: 'assistant', content: pad('a9 prefill') }];
    const call = await postMessage(gateway, body({ messages: prefilled, max_tokens: 300, plugins: [{ id: 'context-compression' }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(labels(small.lastRequest())).toEqual(['u0', 'u8', 'a9']);
  });

  it('answers 400 when even the head and the last turn exceed the context', async () => {
    const huge = [{ role: 'user', content: pad('u0').repeat(4) }, { role: 'assistant', content: pad('a1') }, { role: 'user', content: pad('u2').repeat(3) }];
    const call = await postMessage(gateway, body({ messages: huge, plugins: [{ id: 'context-compression' }] }));

    expect(call.status).toBe(400);
    expect(errorMessage(call)).toMatch(/prompt is too long: about \d+ tokens \(estimated\) > 600 maximum; the prompt does not fit the context length of 600 tokens of test\/small on Alpha Cloud even with 1 messages removed/);
    expect(small.requests).toHaveLength(0);
  });
});

describe('an over-long prompt without the plugin', () => {
  it('skips the endpoint too small for it and sends the prompt whole to a fallback that fits', async () => {
    large.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, body({ fallbacks: [{ model: 'test/large' }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(small.requests).toHaveLength(0);
    expect(labels(large.lastRequest())).toHaveLength(9);
    expect(metadataOf(call).attempts.map((attempt) => [attempt.model, attempt.status])).toEqual([
      ['test/small', 'unsupported'],
      ['test/large', 'success'],
    ]);
  });

  it('is a 400 naming the estimate and the context length when no endpoint can take it, before any upstream call', async () => {
    const call = await postMessage(gateway, body());

    expect(call.status).toBe(400);
    expect(call.body.error).toMatchObject({ type: 'invalid_request_error' });
    expect(errorMessage(call)).toBe(
      `Invalid request parameters: prompt is too long: about ${WHOLE} tokens (estimated) > 600 maximum; the prompt does not fit the context length of 600 tokens of test/small on Alpha Cloud; enable the context-compression plugin to remove messages from the middle`,
    );
    expect(small.requests).toHaveLength(0);
    expect(large.requests).toHaveLength(0);
  });

  it("counts the current tool loop's thinking when its tool result carries <system-reminder> notes", async () => {
    large.enqueue(reply.fixture('anthropic-text'));
    // The loop's thinking (500 tokens) stays in the window: the reminder beside the tool result is no new turn
    // that would make it an earlier turn's, so about 650 tokens with the answer's 100 do not fit 600.
    const loop = [
      { role: 'user', content: 'Fix the failing test.' },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'T'.repeat(2_000), signature: 'sig-loop' }, { type: 'tool_use', id: 'toolu_09', name: 'lookup', input: { q: 'test' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_09', content: pad('r9 result') }, { type: 'text', text: REMINDER }] },
    ];
    const call = await postMessage(gateway, body({ messages: loop, fallbacks: [{ model: 'test/large' }] }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(small.requests).toHaveLength(0);
    expect(metadataOf(call).attempts.map((attempt) => [attempt.model, attempt.status])).toEqual([
      ['test/small', 'unsupported'],
      ['test/large', 'success'],
    ]);
  });

  it('sends a prompt that fits as it is', async () => {
    small.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, body({ messages: CONVERSATION.slice(-3) }));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(labels(small.lastRequest())).toEqual(['u6', 'a7', 'u8']);
  });
});

describe('count_tokens with context-compression', () => {
  it('counts the prompt the model would read: compressed as POST /messages compresses it, whole without the plugin', async () => {
    const count = async (extra: Record<string, unknown>) => {
      // With the message's max_tokens: compression keeps room for the answer, as the message's did.
      const { session_id: _session, ...request } = body(extra);
      const response = await fetch(`${gateway.baseUrl}/messages/count_tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...request, provider: { order: ['alpha'] } }),
      });
      expect(response.status).toBe(200);
      expect(small.lastRequest().operation).toBe('count_tokens');
      return labels(small.lastRequest());
    };
    small.enqueue(reply.fixture('anthropic-text'));
    const answered = await postMessage(gateway, body({ plugins: [{ id: 'context-compression' }] }), WITH_METADATA);
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    const sent = labels(small.lastRequest());
    expect(sent.length).toBeLessThan(CONVERSATION.length);
    expect(await count({ plugins: [{ id: 'context-compression' }] })).toEqual(sent);
    expect(await count({})).toHaveLength(CONVERSATION.length);
  });
});
