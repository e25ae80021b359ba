/**
 * Gemini 3's thought signatures over a whole conversation, driven by the official Anthropic SDK against the
 * gateway and a fake Gemini replaying real recordings. Gemini signs the text of an answer as well as its
 * function calls, and asks for every signature back on the part it signed (required on calls, and on text
 * "recommended", else reasoning quality suffers). Each turn's answer is passed back as the SDK returned it,
 * and the request Gemini gets next carries each signature on its own part. A text's signature rides a block
 * before the text, so that an answer still ends with its text, and only for a client that asked for thinking
 * (one that did not reads the first block as the text); in a stream it comes after the text, too late for
 * that block: streams carry the signatures of calls only.
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures
 */
import type { Message, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { beforeEach, describe, expect, it } from 'vitest';
import { readChunks, readFixture, reply, startFakeGemini } from '#test/helpers/fake-upstreams/index.ts';
import { expectWellFormed, streamThrough, WEATHER_TOOL } from '#test/integration/providers-e2e/e2e-support.ts';
import { useE2eTarget } from '#test/integration/providers-e2e/e2e-target.ts';

const MODEL = 'e2e/gemini-3';
const e2e = useE2eTarget({
  startUpstream: startFakeGemini,
  providerYaml: (fake) => `  google: { base_url: "${fake.baseURL}", api_key: "AIzaSy-e2e-gemini3-0002" }`,
  model: { slug: MODEL, provider: 'google', upstreamModel: 'gemini-3-pro-preview', pricing: '{ input: 2, output: 12 }' },
});

interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { id?: string; name: string; args: unknown };
  functionResponse?: unknown;
}
interface GeminiBody {
  candidates: Array<{ content: { parts: GeminiPart[] } }>;
}

const strawberry: MessageParam = { role: 'user', content: 'How many r are in strawberry?' };
const thanks: MessageParam = { role: 'user', content: 'Thanks. And in raspberry?' };

/** The recorded text answer (JSON): one text part, signed. */
const recordedText = readFixture<GeminiBody>('google', 'google-reasoning-gemini3').candidates[0]?.content.parts[0] as GeminiPart;
/** The recorded streamed answer: two text chunks, then the signature alone on an empty text part. */
const recordedChunks = readChunks<GeminiBody>('google', 'google-reasoning-gemini3').map((chunk) => chunk.candidates[0]?.content.parts[0] as GeminiPart);
/** The recorded function call (JSON and stream carry the same call, each with its own signature). */
const recordedCall = (stream: boolean): GeminiPart =>
  (stream ? readChunks<GeminiBody>('google', 'google-tool-call-gemini3')[0] : readFixture<GeminiBody>('google', 'google-tool-call-gemini3'))?.candidates[0]?.content.parts[0] as GeminiPart;

/**
 * One turn through the SDK, as JSON or as a stream (the SDK's accumulated message), asking for thinking as
 * Claude Code does (a text's signature is carried only then).
 */
async function ask(stream: boolean, messages: MessageParam[], thinking = true): Promise<Message> {
  const body = { model: MODEL, max_tokens: 1024, tools: [WEATHER_TOOL], messages, ...(thinking ? { thinking: { type: 'adaptive' as const } } : {}) };
  if (!stream) return e2e.client.messages.create(body);
  const { events, message } = await streamThrough(e2e.client, body);
  expectWellFormed(events);
  return message;
}

/** The `contents` of the last request the fake Gemini got. */
function lastContents(): Array<{ role: string; parts: GeminiPart[] }> {
  return (e2e.upstream.lastRequest()?.body as { contents: Array<{ role: string; parts: GeminiPart[] }> }).contents;
}

describe('Gemini 3 thought signatures across turns', () => {
  // A failed test leaves its later replies queued: each test starts from an empty script.
  beforeEach(() => e2e.upstream.clear());

  it('sends a text answer back with its signature on the text (JSON)', async () => {
    const { text, thoughtSignature } = recordedText;
    expect(thoughtSignature).toMatch(/^E/);
    e2e.upstream.enqueue(reply.fixture('google-reasoning-gemini3'), reply.fixture('google-text'));
    const answer = await ask(false, [strawberry]);
    // The signature on the empty thinking block right before the text, which stays the answer's last block.
    expect(answer.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    expect(answer.content[0]).toMatchObject({ type: 'thinking', thinking: '' });
    expect(answer.content[1]).toEqual({ type: 'text', text });

    await ask(false, [strawberry, { role: 'assistant', content: answer.content }, thanks]);
    expect(lastContents()).toEqual([
      { role: 'user', parts: [{ text: 'How many r are in strawberry?' }] },
      { role: 'model', parts: [{ text, thoughtSignature }] },
      { role: 'user', parts: [{ text: 'Thanks. And in raspberry?' }] },
    ]);
  });

  it('keeps the text first, unsigned, for a client that did not ask for thinking (JSON)', async () => {
    e2e.upstream.enqueue(reply.fixture('google-reasoning-gemini3'), reply.fixture('google-text'));
    const answer = await ask(false, [strawberry], false);
    // Such a client reads `content[0].text` as the answer; a thinking block there would break it.
    expect(answer.content).toEqual([{ type: 'text', text: recordedText.text }]);
    await ask(false, [strawberry, { role: 'assistant', content: answer.content }, thanks], false);
    expect(lastContents()[1]).toEqual({ role: 'model', parts: [{ text: recordedText.text }] });
  });

  it.each([
    { mode: 'JSON', stream: false },
    { mode: 'stream', stream: true },
  ])('sends a call and the answer after its result back, each signature on its own part ($mode)', async ({ stream }) => {
    e2e.upstream.enqueue(reply.fixture('google-tool-call-gemini3'), reply.fixture('google-reasoning-gemini3'), reply.fixture('google-text'));
    const weather: MessageParam = { role: 'user', content: 'What is the weather in San Francisco?' };
    const callTurn = await ask(stream, [weather]);
    expect(callTurn.stop_reason).toBe('tool_use');
    const call = callTurn.content.find((block) => block.type === 'tool_use');
    expect(call).toMatchObject({ name: 'weather', input: { location: 'San Francisco' } });
    const result: MessageParam = { role: 'user', content: [{ type: 'tool_result', tool_use_id: call?.id ?? '', content: 'Fog, 14°C' }] };

    const answer = await ask(stream, [weather, { role: 'assistant', content: callTurn.content }, result]);
    await ask(stream, [weather, { role: 'assistant', content: callTurn.content }, result, { role: 'assistant', content: answer.content }, thanks]);

    const contents = lastContents();
    expect(contents.map((content) => content.role)).toEqual(['user', 'model', 'user', 'model', 'user']);
    expect(contents[1]?.parts).toEqual([{ functionCall: { id: call?.id, name: 'weather', args: { location: 'San Francisco' } }, thoughtSignature: recordedCall(stream).thoughtSignature }]);
    expect(contents[2]?.parts).toEqual([{ functionResponse: { id: call?.id, name: 'weather', response: expect.objectContaining({ content: 'Fog, 14°C' }) } }]);
    // The answer's text: signed from JSON; from a stream, as the stream gave it (its signature came after it).
    expect(contents[3]?.parts).toEqual(stream ? [{ text: recordedChunks.map((part) => part.text).join('') }] : [{ text: recordedText.text, thoughtSignature: recordedText.thoughtSignature }]);
  });
});
