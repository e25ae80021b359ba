/**
 * The real Claude Code CLI with `--fallback-model` naming a model of another vendor family: the session's
 * model is Gemini's, the fallback OpenAI's (Chat Completions). Gemini's overloaded 503 reaches the CLI as
 * Anthropic's 529 `overloaded_error`, the one status on which it moves to its fallback model; the fallback's
 * turn is translated for OpenAI, the CLI exits 0 with its answer, and the generation records show the failed
 * Gemini calls and the OpenAI answer, charged only for the answer.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openAiChatStep, reply, startFakeGemini, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway } from '#test/helpers/start-gateway.ts';
import { startLoopbackProxy } from '#test/helpers/claude-code/loopback-proxy.ts';
import { describeRun, expectAnswer, recordedGenerations, runAgainst, type ClaudeCodeTarget } from './claude-code-support.ts';

const ANSWER = 'OpenAI answered for the busy Gemini.';
const PRIMARY = 'google/gemini-2.5-pro';
const FALLBACK = 'openai/gpt-5-mini';

let gemini: FakeUpstream;
let openai: FakeUpstream;
let target: ClaudeCodeTarget;

beforeAll(async () => {
  [gemini, openai] = await Promise.all([startFakeGemini(), startFakeOpenAiChat()]);
  const gateway = await startTestGateway({
    catalogYaml: [
      'providers:',
      '  ollama: { enabled: false }',
      `  google: { base_url: "${gemini.baseURL}", api_key: "gemini-shared-fallback-0001" }`,
      `  openai: { family: openai-chat, base_url: "${openai.baseURL}", api_key: "sk-openai-shared-fallback-0001" }`,
      '',
    ].join('\n'),
  });
  const proxy = await startLoopbackProxy({ allowedOrigin: gateway.origin });
  target = {
    upstream: gemini,
    gateway,
    proxy,
    async close() {
      await proxy.close();
      await gateway.close();
      await Promise.all([gemini.close(), openai.close()]);
    },
  };
});
afterAll(() => target?.close());

it('moves from an overloaded Gemini model to an OpenAI fallback model and answers', async () => {
  // Every Gemini attempt overloaded (the CLI retries up to three times before it falls back).
  gemini.enqueue(reply.error(503), reply.error(503), reply.error(503), reply.error(503));
  openai.enqueue(openAiChatStep({ text: ANSWER, usage: { input: 2800, output: 9 } }));
  const outcome = await runAgainst(target, {
    prompt: 'Say hello.',
    model: PRIMARY,
    variable: 'ANTHROPIC_AUTH_TOKEN',
    extraArgs: ['--fallback-model', FALLBACK],
    extraEnv: { CLAUDE_CODE_MAX_RETRIES: '3' },
    timeoutMs: 60_000,
  });
  expectAnswer(outcome, target, ANSWER);
  const context = describeRun(outcome, target);

  const calls = target.proxy.forwarded.map((call) => `${(call.body as { model: string }).model} -> ${call.status}`);
  expect(calls[0], context).toBe(`${PRIMARY} -> 529`);
  expect(calls.at(-1), context).toBe(`${FALLBACK} -> 200`);
  expect(calls.slice(0, -1).every((call) => call === `${PRIMARY} -> 529`), context).toBe(true);
  expect(gemini.requests).toHaveLength(calls.length - 1);
  expect((openai.requests[0]?.body as { model: string }).model).toBe('gpt-5-mini');

  const records = await recordedGenerations(target, calls.length);
  expect(records.map((record) => [record.requested_model, record.status === 'success' ? 'success' : 'failed'])).toEqual([
    ...calls.slice(0, -1).map(() => [PRIMARY, 'failed']),
    [FALLBACK, 'success'],
  ]);
  expect(records.slice(0, -1).every((record) => record.cost === 0)).toBe(true);
  expect(records.at(-1)).toMatchObject({ model: FALLBACK, usage: { input_tokens: 2800, output_tokens: 9 } });
  expect(records.at(-1)?.cost).toBeCloseTo((2800 * 0.25 + 9 * 2) / 1e6, 10);
}, 90_000);
