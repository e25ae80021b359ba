/**
 * The real Claude Code CLI with the models it picks itself, through the gateway to an Anthropic-format
 * upstream: no `--model` (its default) and its `sonnet`, `haiku`, `opus`, `best`, `opusplan` and `sonnet[1m]`
 * aliases. This CLI version sends `claude-opus-5-5`, `claude-sonnet-5-5` and `claude-haiku-5-5` (captured from
 * it); the gateway must know them as catalog models, or a user who sets only `ANTHROPIC_BASE_URL` gets a 404 on
 * the first turn. With `--fallback-model haiku`, the gateway's 529 for an overloaded default model makes the
 * CLI move to haiku.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep, reply, startFakeAnthropic } from '#test/helpers/fake-upstreams/index.ts';
import { describeRun, expectAnswer, messageCalls, resetTarget, runAgainst, startClaudeCodeTarget, type ClaudeCodeTarget } from './claude-code-support.ts';

const SHARED_KEY = 'sk-ant-shared-claude-code-0002';
const ANSWER = 'Hello from the default model.';

let target: ClaudeCodeTarget;

beforeAll(async () => {
  target = await startClaudeCodeTarget({
    startUpstream: () => startFakeAnthropic(),
    providerYaml: (upstream) => `  anthropic: { base_url: "${upstream.url}", api_key: "${SHARED_KEY}" }`,
  });
});
afterAll(() => target?.close());

describe.each([
  { flag: undefined, sent: 'claude-opus-5-5' },
  { flag: 'sonnet', sent: 'claude-sonnet-5-5' },
  { flag: 'haiku', sent: 'claude-haiku-5-5' },
  { flag: 'opus', sent: 'claude-opus-5-5' },
  { flag: 'best', sent: 'claude-opus-5-5' },
  // Opus only in plan mode, which print mode is not.
  { flag: 'opusplan', sent: 'claude-sonnet-5-5' },
  // The 1M-token window of a model that has it by default: the same id, no beta.
  { flag: 'sonnet[1m]', sent: 'claude-sonnet-5-5' },
])('Claude Code with --model $flag', ({ flag, sent }) => {
  it(`sends ${sent}, which the gateway serves from the Anthropic endpoint of its catalog model`, async () => {
    resetTarget(target);
    target.upstream.enqueue(anthropicStep({ text: ANSWER, usage: { input: 900, output: 8 } }));
    const outcome = await runAgainst(target, { prompt: 'Say hello.', ...(flag ? { model: flag } : {}), variable: 'ANTHROPIC_AUTH_TOKEN' });
    expectAnswer(outcome, target, ANSWER);
    const [call] = messageCalls(target, 1);
    expect((call?.body as { model: string }).model, describeRun(outcome, target)).toBe(sent);
    expect((target.upstream.requests[0]?.body as { model: string }).model).toBe(sent);
  });
});

describe('Claude Code with --fallback-model haiku', () => {
  it('switches to claude-haiku-5-5 when the gateway answers 529 overloaded_error for its default model', async () => {
    resetTarget(target);
    // Every attempt overloaded is Anthropic's 529, the one status on which the CLI moves to its fallback model.
    target.upstream.enqueue(reply.error(529), reply.error(529), reply.error(529), reply.error(529), anthropicStep({ text: ANSWER, usage: { input: 900, output: 8 } }));
    const outcome = await runAgainst(target, {
      prompt: 'Say hello.',
      variable: 'ANTHROPIC_AUTH_TOKEN',
      extraArgs: ['--fallback-model', 'haiku'],
      extraEnv: { CLAUDE_CODE_MAX_RETRIES: '3' },
      timeoutMs: 40_000,
    });
    expectAnswer(outcome, target, ANSWER);
    const calls = target.proxy.forwarded.map((call) => `${(call.body as { model: string }).model} -> ${call.status}`);
    expect(calls[0], describeRun(outcome, target)).toBe('claude-opus-5-5 -> 529');
    expect(calls.at(-1)).toBe('claude-haiku-5-5 -> 200');
    expect(target.upstream.requests.map((sent) => (sent.body as { model: string }).model)).toEqual(calls.map((call) => call.split(' ')[0]));
  });
});
