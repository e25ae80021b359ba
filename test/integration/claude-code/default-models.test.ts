/**
 * The real Claude Code CLI with the models it picks itself, through the gateway to an Anthropic-format
 * upstream: no `--model` (its default) and its `sonnet` and `haiku` aliases. This CLI version sends
 * `claude-opus-5-5`, `claude-sonnet-5-5` and `claude-haiku-5-5` (captured from it); the gateway must know
 * them as catalog models, or a user who sets only `ANTHROPIC_BASE_URL` gets a 404 on the first turn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep, startFakeAnthropic } from '#test/helpers/fake-upstreams/index.ts';
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
