/**
 * The real Claude Code CLI on translated vendors that reason, in a `Read` round trip: the first turn's
 * reasoning reaches the CLI as a `thinking` block (its signature the gateway's envelope of the vendor's replay
 * material), the CLI hands it back on the second turn, and the vendor gets its own material back in its own
 * format, beside the tool call and its result under the call's id:
 * - OpenAI Responses: the `reasoning` item with its id and `encrypted_content` (the stateless replay,
 *   `store: false`), then `function_call` and `function_call_output` under one `call_id`;
 * - Gemini: the thought text and the `thoughtSignature` on the `functionCall` part it came with, the
 *   `functionResponse` under the call's id;
 * - DeepSeek's thinking model (Chat Completions): `reasoning_content` on the assistant message with its
 *   `tool_calls`, which DeepSeek requires back within a tool-calling turn.
 * The usage the CLI totals in its result line (reasoning tokens inside output, as Anthropic counts them) is
 * the sum of the gateway's generation records of the two turns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geminiStep, openAiChatStep, reply, startFakeGemini, startFakeOpenAiChat, startFakeOpenAiResponses, type FakeReply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { describeRun, expectAnswer, messageCalls, probeWorkspace, resetTarget, runAgainst, startClaudeCodeTarget, type ClaudeCodeTarget } from './claude-code-support.ts';
import { responsesReadCall, responsesText } from './vendor-read-calls.ts';

const ANSWER = 'The file says the gateway carried it.';
const THOUGHT = 'I should read the file before answering.';
const USAGE = { input: 3000, output: 20 };
// Opaque replay material, in each vendor's shape (the recordings' prefixes).
const ENCRYPTED = 'gAAAAABpPDIVYBwu2ljdVyeU-6Xu1R6056Ogp5vu5omQhuke_vFFLEfQzzhhTQ3W5fqw0KGai3V42B5K';
const SIGNATURE = 'EpEgCo4gAb4+9vvWwdN+NkNiCCwrqvFI8uf9IiD2A47Bm4Sga0kUTm4e';

// Vendor JSON, read field by field in the assertions.
type Item = Record<string, any>;

interface VendorCase {
  name: string;
  model: string;
  startUpstream: () => Promise<FakeUpstream>;
  providerYaml: (upstream: FakeUpstream) => string;
  thinkThenRead: (file: string) => FakeReply;
  answer: FakeReply;
  /** The blocks of the first answer as the CLI hands them back. */
  handedBack: string[];
  /** Checks the second turn the vendor received: its reasoning back, the call and the result (holding `content`). */
  expectReplay: (sent: Item, file: string, content: string) => void;
}

function chatChunk(delta: Record<string, unknown>, finish: string | null = null) {
  return { id: 'chatcmpl-ThinkRead', object: 'chat.completion.chunk', created: 1_790_000_000, model: 'deepseek-reasoner', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
}

const VENDORS: VendorCase[] = [
  {
    name: 'OpenAI Responses',
    model: 'openai/gpt-5-mini',
    startUpstream: () => startFakeOpenAiResponses(),
    providerYaml: (upstream) => `  openai: { base_url: "${upstream.baseURL}", api_key: "sk-openai-shared-think-0001" }`,
    thinkThenRead: (file) => responsesReadCall(file, 'call_ThinkRead01', { id: 'rs_01ThinkRead', summary: THOUGHT, encryptedContent: ENCRYPTED }),
    answer: responsesText(ANSWER),
    handedBack: ['thinking', 'tool_use'],
    expectReplay(sent, file, content) {
      expect(sent.store).toBe(false);
      expect(sent.include).toEqual(['reasoning.encrypted_content']);
      const items = (sent.input as Item[]).filter((item) => item.type !== undefined);
      expect(items).toEqual([
        { type: 'reasoning', id: 'rs_01ThinkRead', encrypted_content: ENCRYPTED, summary: [{ type: 'summary_text', text: THOUGHT }] },
        { type: 'function_call', call_id: 'call_ThinkRead01', name: 'Read', arguments: JSON.stringify({ file_path: file }) },
        { type: 'function_call_output', call_id: 'call_ThinkRead01', output: expect.stringContaining(content) },
      ]);
    },
  },
  {
    name: 'Gemini',
    model: 'google/gemini-2.5-pro',
    startUpstream: () => startFakeGemini(),
    providerYaml: (upstream) => `  google: { base_url: "${upstream.baseURL}", api_key: "gemini-shared-think-0001" }`,
    thinkThenRead: (file) => {
      const base = { modelVersion: 'gemini-2.5-pro', responseId: 'ThinkRead01' };
      return reply.events([
        { candidates: [{ content: { parts: [{ text: THOUGHT, thought: true }], role: 'model' }, index: 0 }], ...base },
        { candidates: [{ content: { parts: [{ functionCall: { name: 'Read', args: { file_path: file } }, thoughtSignature: SIGNATURE }], role: 'model' }, index: 0 }], ...base },
        { candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 3000, candidatesTokenCount: 12, totalTokenCount: 3040, thoughtsTokenCount: 28 }, ...base },
      ]);
    },
    answer: geminiStep({ text: ANSWER, usage: USAGE }),
    // The call's signature rides an empty thinking block of its own, just before the tool_use.
    handedBack: ['thinking', 'thinking', 'tool_use'],
    expectReplay(sent, file, content) {
      expect(sent.generationConfig.thinkingConfig).toMatchObject({ includeThoughts: true });
      const contents = sent.contents as Item[];
      const modelAt = contents.findIndex((entry) => entry.role === 'model');
      const [turn, answer] = [contents[modelAt], contents[modelAt + 1]];
      const id = turn?.parts[1]?.functionCall?.id;
      expect(turn?.parts).toEqual([
        { text: THOUGHT, thought: true },
        { functionCall: { id, name: 'Read', args: { file_path: file } }, thoughtSignature: SIGNATURE },
      ]);
      expect(answer?.parts).toEqual([{ functionResponse: { id, name: 'Read', response: { name: 'Read', content: expect.stringContaining(content) } } }]);
    },
  },
  {
    name: 'DeepSeek thinking',
    model: 'deepseek/deepseek-v3.2-thinking',
    startUpstream: () => startFakeOpenAiChat(),
    providerYaml: (upstream) => `  deepseek: { base_url: "${upstream.baseURL}", api_key: "sk-deepseek-shared-think-0001" }`,
    thinkThenRead: (file) =>
      reply.events([
        chatChunk({ role: 'assistant', content: null, reasoning_content: '' }),
        chatChunk({ reasoning_content: THOUGHT.slice(0, 12) }),
        chatChunk({ reasoning_content: THOUGHT.slice(12) }),
        chatChunk({ tool_calls: [{ index: 0, id: 'call_00_ThinkRead01', type: 'function', function: { name: 'Read', arguments: JSON.stringify({ file_path: file }) } }] }),
        chatChunk({}, 'tool_calls'),
        { ...chatChunk({}), choices: [], usage: { prompt_tokens: 3000, completion_tokens: 40, total_tokens: 3040, completion_tokens_details: { reasoning_tokens: 12 } } },
      ]),
    answer: openAiChatStep({ text: ANSWER, usage: USAGE }),
    handedBack: ['thinking', 'tool_use'],
    expectReplay(sent, file, content) {
      const messages = sent.messages as Item[];
      const [assistant, tool] = messages.slice(-2);
      expect(assistant).toEqual({
        role: 'assistant',
        content: null,
        reasoning_content: THOUGHT,
        tool_calls: [{ id: 'call_00_ThinkRead01', type: 'function', function: { name: 'Read', arguments: JSON.stringify({ file_path: file }) } }],
      });
      expect(tool).toEqual({ role: 'tool', tool_call_id: 'call_00_ThinkRead01', content: expect.stringContaining(content) });
    },
  },
];

type Totals = { input_tokens: number; output_tokens: number; cache_read_input_tokens: number };

/** The token totals of the gateway's last `count` generation records, once that many are written. */
async function recordedTotals(target: ClaudeCodeTarget, count: number): Promise<Totals> {
  const { gateway } = target;
  for (let waited = 0; ; waited += 1) {
    const response = await fetch(`${gateway.baseUrl}/generations?limit=${count}`, { headers: { authorization: `Bearer ${gateway.management_key}` } });
    const records = ((await response.json()) as { data: Array<{ usage: Totals }> }).data;
    if (records.length === count) {
      const sum = (field: keyof Totals) => records.reduce((total, record) => total + record.usage[field], 0);
      return { input_tokens: sum('input_tokens'), output_tokens: sum('output_tokens'), cache_read_input_tokens: sum('cache_read_input_tokens') };
    }
    // Records are written after the answer ends; a few polls cover the write.
    if (waited > 100) throw new Error(`${records.length} generation records, expected ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(VENDORS)('Claude Code thinking then reading on $name', (vendor) => {
  let target: ClaudeCodeTarget;
  beforeAll(async () => {
    target = await startClaudeCodeTarget({ startUpstream: vendor.startUpstream, providerYaml: vendor.providerYaml });
  });
  afterAll(() => target?.close());

  it('shows the thinking, hands it back with the tool result, and the vendor gets its own reasoning back', async () => {
    resetTarget(target);
    const workspace = probeWorkspace();
    try {
      target.upstream.enqueue(vendor.thinkThenRead(workspace.file), vendor.answer);
      const prompt = `Read the file ${workspace.file} and tell me what it says.`;
      const outcome = await runAgainst(target, { prompt, model: vendor.model, variable: 'ANTHROPIC_AUTH_TOKEN', cwd: workspace.cwd, allowedTools: ['Read'], timeoutMs: 60_000 });
      expectAnswer(outcome, target, ANSWER);
      const context = describeRun(outcome, target);

      // The CLI printed the thinking block, and sent it back as it got it, before the tool call.
      const shown = outcome.events.flatMap((event) => (event.type === 'assistant' ? ((event.message as { content: Item[] }).content ?? []) : []));
      const thinking = shown.find((block) => block.type === 'thinking');
      expect(thinking, context).toMatchObject({ thinking: THOUGHT, signature: expect.stringMatching(/^sbsig1_/) });
      const [, second] = messageCalls(target, 2);
      const handedBack = (second?.body as { messages: Item[] }).messages.find((message) => message.role === 'assistant');
      expect(handedBack?.content.map((block: Item) => block.type)).toEqual(vendor.handedBack);
      expect(handedBack?.content[0]).toEqual({ type: 'thinking', thinking: THOUGHT, signature: thinking?.signature });

      vendor.expectReplay(target.upstream.requests[1]?.body as Item, workspace.file, workspace.content);

      const totals = await recordedTotals(target, 2);
      expect(outcome.result?.usage, context).toMatchObject(totals);
      expect(totals.output_tokens).toBeGreaterThan(0);
    } finally {
      workspace.remove();
    }
  }, 90_000);
});
