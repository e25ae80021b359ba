/**
 * The real Claude Code CLI reading a PNG on translated vendors: its `Read` tool answers with a `tool_result`
 * holding only an image block, which each vendor must get as an image the model can see, in its own format.
 * - OpenAI Chat Completions takes tool messages as text only: the AI SDK wrote the image as the JSON of its
 *   parts (base64 the model reads as text; a screenshot is hundreds of thousands of tokens). The tool message
 *   now says where the image went, and the image follows in a user message after the tool messages.
 * - Gemini (before Gemini 3) got no `functionResponse` for the call, only a bare `inlineData` part, and refuses
 *   such a turn with a 400 (the fake checks the count as Gemini does), so every later turn failed. It now gets
 *   one function response per call with the image beside it.
 * - OpenAI Responses (`input_image` in the `function_call_output`) and Bedrock Converse (an `image` in the
 *   `toolResult`) take the image in the result, and did already.
 * - OpenAI-compatible vendors (Groq here) got the result as the JSON text of its parts, base64 included, on
 *   every model. A model with `vision` now gets it as OpenAI Chat does; one without gets a short note in the
 *   image's place (a vendor refuses an image to a text-only model, and its base64 text is of no use to it).
 *   Groq has retired both models for most accounts (src/catalog/models/open-weight-models.ts): the configuration
 *   keeps them, as a deployment whose contract still has them would (`retires_at: null`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bedrockStep,
  geminiStep,
  openAiChatStep,
  startFakeBedrock,
  startFakeGemini,
  startFakeOpenAiChat,
  startFakeOpenAiResponses,
  type FakeReply,
  type FakeUpstream,
} from '#test/helpers/fake-upstreams/index.ts';
import { describeRun, expectAnswer, messageCalls, resetTarget, runAgainst, startClaudeCodeTarget, type ClaudeCodeTarget } from './claude-code-support.ts';
import { responsesReadCall, responsesText, tinyPng } from './vendor-read-calls.ts';

const ANSWER = 'The image is a small red gradient.';
const CALL_ID = 'call_ImageProbe01';
const USAGE = { input: 3000, output: 20 };

type Body = Record<string, unknown>;
// Vendor JSON, read field by field in the assertions.
type Item = Record<string, any>;

interface VendorCase {
  name: string;
  model: string;
  startUpstream: () => Promise<FakeUpstream>;
  providerYaml: (upstream: FakeUpstream) => string;
  readCall: (file: string) => FakeReply;
  answer: FakeReply;
  /** Checks the second turn the upstream received carries `image` (the CLI's base64 PNG) as the model can read it. */
  expectImage: (sent: Body, image: string) => void;
  /** Catalog sections after `providers:`, one line each. */
  catalogLines?: readonly string[];
}

/** The configuration that keeps Groq serving a built-in model it has retired for most accounts. */
function keptOnGroq(model: string): string[] {
  return ['models:', `  ${model}:`, '    endpoints:', '      - { provider: groq, retires_at: null }'];
}

const VENDORS: VendorCase[] = [
  {
    name: 'OpenAI Chat Completions',
    model: 'openai/gpt-5-mini',
    startUpstream: () => startFakeOpenAiChat(),
    providerYaml: (upstream) => `  openai: { family: openai-chat, base_url: "${upstream.baseURL}", api_key: "sk-openai-shared-image-0001" }`,
    readCall: (file) => openAiChatStep({ calls: [{ name: 'Read', input: { file_path: file }, id: CALL_ID }], usage: USAGE }),
    answer: openAiChatStep({ text: ANSWER, usage: USAGE }),
    expectImage(sent, image) {
      const messages = sent.messages as Item[];
      const toolAt = messages.findIndex((message) => message.role === 'tool');
      const [tool, after] = [messages[toolAt], messages[toolAt + 1]];
      expect(messages[toolAt - 1]?.tool_calls?.[0]?.id).toBe(CALL_ID);
      expect(tool).toEqual({ role: 'tool', tool_call_id: CALL_ID, content: '[The tool returned an image, attached to the next user message.]' });
      expect(after?.role).toBe('user');
      expect(after?.content).toContainEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${image}` } });
      expect(JSON.stringify(messages.filter((message) => message.role !== 'user'))).not.toContain(image.slice(0, 40));
    },
  },
  {
    name: 'Gemini',
    model: 'google/gemini-2.5-pro',
    startUpstream: () => startFakeGemini(),
    providerYaml: (upstream) => `  google: { base_url: "${upstream.baseURL}", api_key: "gemini-shared-image-0001" }`,
    readCall: (file) => geminiStep({ calls: [{ name: 'Read', input: { file_path: file } }], usage: USAGE }),
    answer: geminiStep({ text: ANSWER, usage: USAGE }),
    expectImage(sent, image) {
      const contents = sent.contents as Item[];
      const callAt = contents.findIndex((content) => content.parts.some((part: Item) => part.functionCall));
      const call = contents[callAt]?.parts.find((part: Item) => part.functionCall).functionCall;
      const answer = contents[callAt + 1] as Item;
      expect(answer.role).toBe('user');
      const responses = answer.parts.filter((part: Item) => part.functionResponse);
      expect(responses).toEqual([{ functionResponse: { id: call.id, name: 'Read', response: { name: 'Read', content: 'The tool returned an image.' } } }]);
      expect(answer.parts).toContainEqual({ inlineData: { mimeType: 'image/png', data: image } });
    },
  },
  {
    name: 'Groq, a model with vision',
    model: 'meta-llama/llama-4-maverick',
    startUpstream: () => startFakeOpenAiChat(),
    providerYaml: (upstream) => `  groq: { base_url: "${upstream.baseURL}", api_key: "gsk-groq-shared-image-0001" }`,
    catalogLines: keptOnGroq('meta-llama/llama-4-maverick'),
    readCall: (file) => openAiChatStep({ calls: [{ name: 'Read', input: { file_path: file }, id: CALL_ID }], usage: USAGE }),
    answer: openAiChatStep({ text: ANSWER, usage: USAGE }),
    expectImage(sent, image) {
      const messages = sent.messages as Item[];
      const toolAt = messages.findIndex((message) => message.role === 'tool');
      expect(messages[toolAt - 1]?.tool_calls?.[0]?.id).toBe(CALL_ID);
      expect(messages[toolAt]).toEqual({ role: 'tool', tool_call_id: CALL_ID, content: '[The tool returned an image, attached to the next user message.]' });
      expect(messages[toolAt + 1]?.role).toBe('user');
      expect(messages[toolAt + 1]?.content).toContainEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${image}` } });
      expect(JSON.stringify(messages.filter((message) => message.role !== 'user'))).not.toContain(image.slice(0, 40));
    },
  },
  {
    name: 'Groq, a model without vision',
    model: 'qwen/qwen3-32b',
    startUpstream: () => startFakeOpenAiChat(),
    providerYaml: (upstream) => `  groq: { base_url: "${upstream.baseURL}", api_key: "gsk-groq-shared-image-0002" }`,
    catalogLines: keptOnGroq('qwen/qwen3-32b'),
    readCall: (file) => openAiChatStep({ calls: [{ name: 'Read', input: { file_path: file }, id: CALL_ID }], usage: USAGE }),
    answer: openAiChatStep({ text: ANSWER, usage: USAGE }),
    expectImage(sent, image) {
      const messages = sent.messages as Item[];
      const toolAt = messages.findIndex((message) => message.role === 'tool');
      expect(messages[toolAt]).toEqual({ role: 'tool', tool_call_id: CALL_ID, content: '[The tool returned an image (image/png), which this model cannot read.]' });
      expect(messages.slice(toolAt + 1)).toEqual([]);
      expect(JSON.stringify(sent)).not.toContain(image.slice(0, 40));
    },
  },
  {
    name: 'OpenAI Responses',
    model: 'openai/gpt-5-mini',
    startUpstream: () => startFakeOpenAiResponses(),
    providerYaml: (upstream) => `  openai: { base_url: "${upstream.baseURL}", api_key: "sk-openai-shared-image-0002" }`,
    readCall: (file) => responsesReadCall(file, CALL_ID),
    answer: responsesText(ANSWER),
    expectImage(sent, image) {
      const output = (sent.input as Item[]).find((item) => item.type === 'function_call_output');
      expect(output).toEqual({ type: 'function_call_output', call_id: CALL_ID, output: [{ type: 'input_image', image_url: `data:image/png;base64,${image}` }] });
    },
  },
  {
    name: 'Bedrock Converse',
    model: 'anthropic/claude-sonnet-4.5',
    startUpstream: () => startFakeBedrock(),
    providerYaml: (upstream) => `  bedrock: { base_url: "${upstream.url}", api_key: "bedrock-shared-image-0001" }`,
    readCall: (file) => bedrockStep({ calls: [{ name: 'Read', input: { file_path: file }, id: 'tooluse_ImageProbe01' }], usage: USAGE }),
    answer: bedrockStep({ text: ANSWER, usage: USAGE }),
    expectImage(sent, image) {
      const results = (sent.messages as Item[]).flatMap((message) => message.content.filter((block: Item) => block.toolResult));
      expect(results).toHaveLength(1);
      expect(results[0].toolResult.toolUseId).toBe('tooluse_ImageProbe01');
      expect(results[0].toolResult.content).toContainEqual({ image: { format: 'png', source: { bytes: image } } });
    },
  },
];

describe.each(VENDORS)('Claude Code reads a PNG on $name', (vendor) => {
  let target: ClaudeCodeTarget;
  let cwd: string;
  beforeAll(async () => {
    target = await startClaudeCodeTarget({ startUpstream: vendor.startUpstream, providerYaml: vendor.providerYaml, extraCatalogLines: vendor.catalogLines });
    cwd = mkdtempSync(join(tmpdir(), 'switchboard-claude-code-image-'));
  });
  afterAll(async () => {
    rmSync(cwd, { recursive: true, force: true });
    await target?.close();
  });

  it('the image reaches the model as it can read it, and the answer is printed', async () => {
    resetTarget(target);
    const file = join(cwd, 'picture.png');
    writeFileSync(file, tinyPng());
    target.upstream.enqueue(vendor.readCall(file), vendor.answer);
    const outcome = await runAgainst(target, { prompt: `Describe the image ${file}.`, model: vendor.model, variable: 'ANTHROPIC_AUTH_TOKEN', cwd, allowedTools: ['Read'], timeoutMs: 60_000 });
    expectAnswer(outcome, target, ANSWER);

    const [, second] = messageCalls(target, 2);
    const cliTurn = second?.body as { messages: Array<{ role: string; content: Item[] | string }> };
    const lastUser = cliTurn.messages.findLast((message) => message.role === 'user' && Array.isArray(message.content));
    const result = (lastUser?.content as Item[]).find((block) => block.type === 'tool_result');
    const image = (result?.content as Item[] | undefined)?.find((block) => block.type === 'image');
    expect(image?.source?.media_type, describeRun(outcome, target)).toBe('image/png');
    vendor.expectImage(target.upstream.requests[1]?.body as Body, image?.source?.data as string);
  }, 90_000);
});
