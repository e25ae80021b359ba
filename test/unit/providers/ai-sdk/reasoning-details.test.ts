/**
 * OpenRouter's reasoning items: merging streamed pieces, placing them on a JSON answer's reasoning, carrying a
 * stream's to its thinking blocks, and lifting them onto the replayed assistant message.
 */
import type { JSONObject, LanguageModelV4Content, LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { attachReasoningDetails, carryReasoningDetails, liftReasoningDetails, mergeReasoningDetails, reasoningDetailsOfBody, reasoningDetailsOfChunk } from '#src/providers/ai-sdk/reasoning-details.ts';

const text = (piece: string, extra: JSONObject = {}): JSONObject => ({ type: 'reasoning.text', text: piece, format: 'anthropic-claude-v1', index: 0, ...extra });
const encrypted = (data: string, index = 0): JSONObject => ({ type: 'reasoning.encrypted', data, format: 'openai-responses-v1', index });
const chunk = (items: JSONObject[]) => ({ choices: [{ index: 0, delta: { reasoning_details: items } }] });

describe('mergeReasoningDetails', () => {
  it.each([
    ['text pieces join, the signature fills in', [[text('Let me ')], [text('think.')], [text('', { signature: 'sig' })]], [text('Let me think.', { signature: 'sig' })]],
    ['summary pieces join', [[{ type: 'reasoning.summary', summary: 'A', index: 0 }], [{ type: 'reasoning.summary', summary: 'B', index: 0 }]], [{ type: 'reasoning.summary', summary: 'AB', index: 0 }]],
    ['encrypted items stay whole', [[encrypted('x')], [encrypted('y', 1)]], [encrypted('x'), encrypted('y', 1)]],
    ['another index starts a new item', [[text('a')], [text('b', { index: 1 })]], [text('a'), text('b', { index: 1 })]],
    ['another type starts a new item', [[text('a')], [encrypted('x', 1)], [text('b', { index: 2 })]], [text('a'), encrypted('x', 1), text('b', { index: 2 })]],
    ['a field already set is kept', [[text('a', { id: 'first' })], [text('b', { id: 'second' })]], [text('ab', { id: 'first' })]],
  ] as const)('%s', (_name, chunks, expected) => {
    const received: JSONObject[] = [];
    for (const items of chunks) mergeReasoningDetails(received, items as unknown as JSONObject[]);
    expect(received).toEqual(expected);
  });

  it('leaves the items it was given untouched', () => {
    const first = text('a');
    const received: JSONObject[] = [];
    mergeReasoningDetails(received, [first]);
    mergeReasoningDetails(received, [text('b')]);
    expect(first).toEqual(text('a'));
  });
});

describe('reading the items', () => {
  it.each([
    [{ choices: [{ message: { reasoning_details: [encrypted('x'), 'junk', null] } }] }, [encrypted('x')]],
    [{ choices: [{ message: { content: 'Hi' } }] }, []],
    [{ choices: [] }, []],
    ['not an answer', []],
  ])('from a JSON answer %#', (body, expected) => {
    expect(reasoningDetailsOfBody(body)).toEqual(expected);
  });

  it.each([
    [chunk([text('a')]), [text('a')]],
    [{ choices: [{ delta: { reasoning: 'a' } }] }, []],
    [{ choices: [], usage: {} }, []],
  ])('from a stream chunk %#', (value, expected) => {
    expect(reasoningDetailsOfChunk(value)).toEqual(expected);
  });
});

// The call that produced the items, and where they are stamped as coming from.
const ORIGIN = { provider: 'openrouter', upstreamModel: 'anthropic/claude-sonnet-4.5' };
const FROM = 'openrouter/anthropic/claude-sonnet-4.5';

describe('attachReasoningDetails', () => {
  const call: LanguageModelV4Content = { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: '{}' };
  const items = [encrypted('x')];

  it('puts the items on the first reasoning part', () => {
    const content: LanguageModelV4Content[] = [{ type: 'reasoning', text: 'Hmm.' }, call];
    expect(attachReasoningDetails(content, items, ORIGIN)).toEqual([{ type: 'reasoning', text: 'Hmm.', providerMetadata: { openaiCompatible: { reasoningDetails: items, reasoningDetailsFrom: FROM } } }, call]);
  });

  it('puts them on an empty reasoning part first when there is none', () => {
    expect(attachReasoningDetails([call], items, ORIGIN)).toEqual([{ type: 'reasoning', text: '', providerMetadata: { openaiCompatible: { reasoningDetails: items, reasoningDetailsFrom: FROM } } }, call]);
  });

  it('changes nothing without items', () => {
    expect(attachReasoningDetails([call], [], ORIGIN)).toEqual([call]);
  });
});

/** The parts a stream gives through `carryReasoningDetails`. */
async function carried(parts: LanguageModelV4StreamPart[]): Promise<LanguageModelV4StreamPart[]> {
  const out: LanguageModelV4StreamPart[] = [];
  const stream = new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  }).pipeThrough(carryReasoningDetails(ORIGIN));
  for await (const part of stream) out.push(part);
  return out;
}

const raw = (items: JSONObject[]): LanguageModelV4StreamPart => ({ type: 'raw', rawValue: chunk(items) });
const finish: LanguageModelV4StreamPart = { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } } };
const withItems = (items: JSONObject[], from: string | undefined = FROM) => ({ openaiCompatible: { reasoningDetails: items, ...(from === undefined ? {} : { reasoningDetailsFrom: from }) } });
const carrier = (n: number, items: JSONObject[]): LanguageModelV4StreamPart[] => [
  { type: 'reasoning-start', id: `reasoning-details-${n}` },
  { type: 'reasoning-end', id: `reasoning-details-${n}`, providerMetadata: withItems(items) },
];

describe('carryReasoningDetails', () => {
  it('puts the items received on the reasoning part that ends, and drops the raw chunks', async () => {
    const out = await carried([
      raw([text('Hmm.')]),
      { type: 'reasoning-start', id: 'reasoning-0' },
      { type: 'reasoning-delta', id: 'reasoning-0', delta: 'Hmm.' },
      raw([text('', { signature: 'sig' })]),
      { type: 'reasoning-end', id: 'reasoning-0' },
      { type: 'text-start', id: 'txt-0' },
      finish,
    ]);
    expect(out).toEqual([
      { type: 'reasoning-start', id: 'reasoning-0' },
      { type: 'reasoning-delta', id: 'reasoning-0', delta: 'Hmm.' },
      { type: 'reasoning-end', id: 'reasoning-0', providerMetadata: withItems([text('Hmm.', { signature: 'sig' })]) },
      { type: 'text-start', id: 'txt-0' },
      finish,
    ]);
  });

  it.each([
    ['a streamed call', { type: 'tool-input-start', id: 'c1', toolName: 'weather' } as LanguageModelV4StreamPart],
    ['a whole call', { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: '{}' } as LanguageModelV4StreamPart],
    ['a text', { type: 'text-start', id: 'txt-0' } as LanguageModelV4StreamPart],
  ])('gives items without reasoning text an empty reasoning part before %s', async (_name, part) => {
    expect(await carried([raw([encrypted('x')]), part, finish])).toEqual([...carrier(1, [encrypted('x')]), part, finish]);
  });

  it('gives items left at the end of a tool-calling turn a reasoning part after the calls', async () => {
    const call: LanguageModelV4StreamPart = { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: '{}' };
    const start: LanguageModelV4StreamPart = { type: 'tool-input-start', id: 'c1', toolName: 'weather' };
    expect(await carried([start, call, raw([encrypted('x')]), finish])).toEqual([start, call, ...carrier(1, [encrypted('x')]), finish]);
  });

  it('keeps no items that come after the final text of a turn without calls', async () => {
    const textStart: LanguageModelV4StreamPart = { type: 'text-start', id: 'txt-0' };
    expect(await carried([textStart, raw([encrypted('x')]), finish])).toEqual([textStart, finish]);
  });
});

describe('liftReasoningDetails', () => {
  const reasoning = (items: JSONObject[] | undefined, words = '', from: string | undefined = FROM) => ({ type: 'reasoning' as const, text: words, ...(items ? { providerOptions: withItems(items, from) } : {}) });

  it('gathers an assistant message\'s items, in order, as its reasoning_details', () => {
    const prompt: LanguageModelV4Prompt = [
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: [reasoning([text('a')], 'a'), reasoning([encrypted('x', 1)]), { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: {} }] },
    ];
    const lifted = liftReasoningDetails(prompt, ORIGIN);
    expect(lifted[0]).toBe(prompt[0]);
    expect(lifted[1]?.providerOptions).toEqual({ openaiCompatible: { reasoning_details: [text('a'), encrypted('x', 1)] } });
  });

  it.each([
    ['no reasoning', [{ type: 'text' as const, text: 'Hello.' }]],
    ['reasoning without items (another vendor\'s, or the text only)', [reasoning(undefined, 'a')]],
  ])('leaves an assistant message with %s alone', (_name, content) => {
    const message = { role: 'assistant' as const, content };
    expect(liftReasoningDetails([message], ORIGIN)[0]).toBe(message);
  });

  it.each([
    ['another model of the same provider (a fallback)', { provider: 'openrouter', upstreamModel: 'google/gemini-3-pro-preview' }],
    ['the same model on another provider', { provider: 'openrouter-eu', upstreamModel: 'anthropic/claude-sonnet-4.5' }],
  ])('sends no items to %s', (_name, origin) => {
    const message = { role: 'assistant' as const, content: [reasoning([text('a')], 'a')] };
    expect(liftReasoningDetails([message], origin)[0]).toBe(message);
  });

  it('sends only the items of the model called when a conversation holds two models\' turns', () => {
    const mine = text('mine');
    const content = [reasoning([text('theirs')], 'theirs', 'openrouter/google/gemini-3-pro-preview'), reasoning([mine], 'mine')];
    expect(liftReasoningDetails([{ role: 'assistant', content }], ORIGIN)[0]?.providerOptions).toEqual({ openaiCompatible: { reasoning_details: [mine] } });
  });

  it('sends unstamped items (carried before the stamp existed) as before', () => {
    const content = [reasoning([encrypted('x')], '', undefined)];
    expect(liftReasoningDetails([{ role: 'assistant', content }], ORIGIN)[0]?.providerOptions).toEqual({ openaiCompatible: { reasoning_details: [encrypted('x')] } });
  });

  it('keeps objects only from what a signature carried', () => {
    const forged = { type: 'reasoning' as const, text: '', providerOptions: { openaiCompatible: { reasoningDetails: ['text', 3, encrypted('x')] } } };
    expect(liftReasoningDetails([{ role: 'assistant', content: [forged] }], ORIGIN)[0]?.providerOptions).toEqual({ openaiCompatible: { reasoning_details: [encrypted('x')] } });
  });
});
