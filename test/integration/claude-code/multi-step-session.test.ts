/**
 * The real Claude Code CLI in a session of several tool steps on every vendor family: the model writes a file
 * (`Write`), runs a shell command on it (`Bash`), reads it back (`Read`, two files at once) and answers. On
 * the Anthropic passthrough, OpenAI Chat Completions, OpenAI Responses, Gemini and Bedrock Converse the CLI
 * must end with exit 0 and the answer, the file must be on disk, each tool's output must reach the vendor in
 * the next turn, and each of the five turns must leave a generation record with the served model, the
 * vendor's token counts and their cost at the catalog's prices; the CLI's own usage total is their sum.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anthropicStep,
  bedrockStep,
  geminiStep,
  openAiChatStep,
  startFakeAnthropic,
  startFakeBedrock,
  startFakeGemini,
  startFakeOpenAiChat,
  startFakeOpenAiResponses,
  type FakeReply,
  type FakeUpstream,
  type ScriptedStep,
} from '#test/helpers/fake-upstreams/index.ts';
import { describeRun, expectAnswer, messageCalls, recordedGenerations, resetTarget, runAgainst, startClaudeCodeTarget, type ClaudeCodeTarget } from './claude-code-support.ts';
import { responsesStep } from './vendor-read-calls.ts';

interface VendorCase {
  name: string;
  model: string;
  startUpstream: () => Promise<FakeUpstream>;
  providerYaml: (upstream: FakeUpstream) => string;
  step: (step: ScriptedStep) => FakeReply;
  /** The catalog's price of the model's endpoint on this vendor, in USD per million input and output tokens. */
  price: { input: number; output: number };
}

const VENDORS: VendorCase[] = [
  {
    name: 'Anthropic',
    model: 'anthropic/claude-sonnet-4.5',
    startUpstream: () => startFakeAnthropic(),
    providerYaml: (upstream) => `  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-shared-steps-0001" }`,
    step: anthropicStep,
    price: { input: 3, output: 15 },
  },
  {
    name: 'OpenAI Chat Completions',
    model: 'openai/gpt-5-mini',
    startUpstream: () => startFakeOpenAiChat(),
    providerYaml: (upstream) => `  openai: { family: openai-chat, base_url: "${upstream.baseURL}", api_key: "sk-openai-shared-steps-0001" }`,
    step: openAiChatStep,
    price: { input: 0.25, output: 2 },
  },
  {
    name: 'OpenAI Responses',
    model: 'openai/gpt-5-mini',
    startUpstream: () => startFakeOpenAiResponses(),
    providerYaml: (upstream) => `  openai: { base_url: "${upstream.baseURL}", api_key: "sk-openai-shared-steps-0002" }`,
    step: responsesStep,
    price: { input: 0.25, output: 2 },
  },
  {
    name: 'Gemini',
    model: 'google/gemini-2.5-pro',
    startUpstream: () => startFakeGemini(),
    providerYaml: (upstream) => `  google: { base_url: "${upstream.baseURL}", api_key: "gemini-shared-steps-0001" }`,
    step: geminiStep,
    price: { input: 1.25, output: 10 },
  },
  {
    name: 'Bedrock Converse',
    model: 'anthropic/claude-sonnet-4.5',
    startUpstream: () => startFakeBedrock(),
    providerYaml: (upstream) => `  bedrock: { base_url: "${upstream.url}", api_key: "bedrock-shared-steps-0001" }`,
    step: bedrockStep,
    price: { input: 3, output: 15 },
  },
];

const ANSWER = 'Wrote, shouted and read the notes.';
// Each turn's token counts, distinct so that a record given another turn's counts shows.
const USAGE = [
  { input: 3100, output: 21 },
  { input: 3200, output: 22 },
  { input: 3300, output: 23 },
  { input: 3400, output: 24 },
  { input: 3500, output: 25 },
];

describe.each(VENDORS)('Claude Code in a multi-step tool session on $name', (vendor) => {
  let target: ClaudeCodeTarget;
  let cwd: string;
  beforeAll(async () => {
    target = await startClaudeCodeTarget({ startUpstream: vendor.startUpstream, providerYaml: vendor.providerYaml });
    cwd = mkdtempSync(join(tmpdir(), 'switchboard-claude-code-steps-'));
  });
  afterAll(async () => {
    rmSync(cwd, { recursive: true, force: true });
    await target?.close();
  });

  it('writes, runs, reads two files at once and answers; each turn is recorded with its tokens and cost', async () => {
    resetTarget(target);
    const notes = join(cwd, 'notes.txt');
    const other = join(cwd, 'other.txt');
    const marker = `marker-${Math.random().toString(36).slice(2, 10)}`;
    writeFileSync(other, `${marker}\n`);
    const usage = (turn: number) => USAGE[turn] as ScriptedStep['usage'];
    target.upstream.enqueue(
      vendor.step({ text: 'Writing the notes.', calls: [{ name: 'Write', input: { file_path: notes, content: 'alpha beta\n' } }], usage: usage(0) }),
      vendor.step({ calls: [{ name: 'Bash', input: { command: 'tr a-z A-Z < notes.txt', description: 'Upper-case the notes' } }], usage: usage(1) }),
      vendor.step({ calls: [{ name: 'Read', input: { file_path: notes } }, { name: 'Read', input: { file_path: other } }], usage: usage(2) }),
      vendor.step({ text: 'Checking once more.', calls: [{ name: 'Bash', input: { command: 'ls', description: 'List the files' } }], usage: usage(3) }),
      vendor.step({ text: ANSWER, usage: usage(4) }),
    );
    const outcome = await runAgainst(target, {
      prompt: 'Write alpha beta to notes.txt, upper-case it with tr, read it and other.txt, list the files.',
      model: vendor.model,
      variable: 'ANTHROPIC_AUTH_TOKEN',
      cwd,
      allowedTools: ['Write', 'Bash', 'Read'],
      timeoutMs: 60_000,
    });
    expectAnswer(outcome, target, ANSWER);
    const context = describeRun(outcome, target);
    expect(readFileSync(notes, 'utf8')).toBe('alpha beta\n');

    // What each tool gave back is in the turn after it, in the vendor's format (checked as text: the shape of
    // tool results per vendor is the translators' suites' concern).
    messageCalls(target, 5);
    const sent = target.upstream.requests.map((request) => request.rawBody);
    expect(sent[1], 'the Write result').toContain(notes);
    expect(sent[2], 'the Bash output').toContain('ALPHA BETA');
    expect(sent[3], 'the first Read').toContain('alpha beta');
    expect(sent[3], 'the second Read').toContain(marker);
    expect(sent[4], 'the ls output').toContain('other.txt');

    const records = await recordedGenerations(target, 5);
    expect(records.map((record) => [record.requested_model, record.model, record.status, record.stop_reason]), context).toEqual(
      USAGE.map((_, turn) => [vendor.model, vendor.model, 'success', turn < 4 ? 'tool_use' : 'end_turn']),
    );
    records.forEach((record, turn) => {
      const { input, output } = usage(turn);
      expect(record.usage, `turn ${turn + 1}`).toMatchObject({ input_tokens: input, output_tokens: output, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
      expect(record.cost, `turn ${turn + 1}`).toBeCloseTo((input * vendor.price.input + output * vendor.price.output) / 1e6, 10);
    });
    const sum = (field: 'input_tokens' | 'output_tokens') => records.reduce((total, record) => total + record.usage[field], 0);
    expect(outcome.result?.usage, context).toMatchObject({ input_tokens: sum('input_tokens'), output_tokens: sum('output_tokens') });
  }, 90_000);
});
