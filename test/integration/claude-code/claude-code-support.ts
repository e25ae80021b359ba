/**
 * Shared pieces of the suites that run the real Claude Code CLI through the gateway: one fake vendor upstream,
 * a gateway whose catalog points a provider at it, the loopback proxy the CLI's every connection goes through,
 * a working directory with a file for the CLI's `Read` tool, the tool calls each vendor's fake asks for, and
 * assertions whose failure message holds the CLI's stderr and the gateway's log lines.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, vi } from 'vitest';
import { reply, type FakeReply, type FakeUpstream, type RecordedRequest } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { startLoopbackProxy, type LoopbackProxy, type ProxiedRequest } from '#test/helpers/claude-code/loopback-proxy.ts';
import { runClaudeCode, type ClaudeCodeOutcome, type ClaudeCodeRun, type ClaudeKeyVariable } from '#test/helpers/claude-code/run-claude-code.ts';
import { builtInCatalogYaml } from '#test/integration/providers/vendor-gateway-support.ts';

// A CLI run starts a Node process that loads a large bundle: on a loaded machine a first run took over 20 s
// (the CLI's own limit below) and was killed. These suites wait for the program, not a clock.
vi.setConfig({ testTimeout: 90_000 });

/** Both ways a user hands Claude Code the gateway key. */
export const KEY_VARIABLES: readonly ClaudeKeyVariable[] = ['ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_API_KEY'];

/** The header the CLI puts the key in, per variable. */
export const KEY_HEADER: Readonly<Record<ClaudeKeyVariable, 'authorization' | 'x-api-key'>> = {
  ANTHROPIC_AUTH_TOKEN: 'authorization',
  ANTHROPIC_API_KEY: 'x-api-key',
};

/** A fake upstream, the gateway in front of it and the proxy in front of the gateway. */
export interface ClaudeCodeTarget {
  upstream: FakeUpstream;
  gateway: TestGateway;
  proxy: LoopbackProxy;
  close(): Promise<void>;
}

/**
 * Starts `startUpstream`, a gateway whose catalog holds `providerYaml(upstream)` (one line under
 * `providers:`; the local `ollama` preset is disabled so nothing but the fake can serve) and any
 * `extraCatalogLines`, and the proxy.
 */
export async function startClaudeCodeTarget(options: {
  startUpstream: () => Promise<FakeUpstream>;
  providerYaml: (upstream: FakeUpstream) => string;
  /** Top-level catalog sections after `providers:` (e.g. `server_tools:`), one line each. */
  extraCatalogLines?: readonly string[];
}): Promise<ClaudeCodeTarget> {
  const upstream = await options.startUpstream();
  const gateway = await startTestGateway({ catalogYaml: builtInCatalogYaml(options.providerYaml(upstream), ...(options.extraCatalogLines ?? [])) });
  const proxy = await startLoopbackProxy({ allowedOrigin: gateway.origin });
  return {
    upstream,
    gateway,
    proxy,
    async close() {
      await proxy.close();
      await gateway.close();
      await upstream.close();
    },
  };
}

/** Forgets what the previous test recorded and left scripted. */
export function resetTarget(target: ClaudeCodeTarget): void {
  target.upstream.clear();
  target.proxy.clear();
}

/** Runs the CLI against the target's gateway with its inference key in `variable`. */
export function runAgainst(
  target: ClaudeCodeTarget,
  run: Omit<ClaudeCodeRun, 'gatewayOrigin' | 'key' | 'proxyUrl'> & { variable: ClaudeKeyVariable },
): Promise<ClaudeCodeOutcome> {
  const { variable, ...rest } = run;
  return runClaudeCode({ ...rest, gatewayOrigin: target.gateway.origin, key: { variable, value: target.gateway.api_key }, proxyUrl: target.proxy.url });
}

// The fields of the CLI's result event that say how the run ended (the rest is usage and statistics).
const RESULT_FIELDS = ['subtype', 'is_error', 'terminal_reason', 'api_error_status', 'num_turns', 'result', 'permission_denials'];

function summaryOf(result: Record<string, unknown> | undefined): Record<string, unknown> | null {
  if (result === undefined) return null;
  return Object.fromEntries(RESULT_FIELDS.filter((field) => field in result).map((field) => [field, result[field]]));
}

/** Everything needed to tell why a run went wrong. */
export function describeRun(outcome: ClaudeCodeOutcome, target: ClaudeCodeTarget): string {
  return [
    `Claude Code exited with ${outcome.exitCode ?? `signal ${outcome.signal}`}`,
    `result event: ${JSON.stringify(summaryOf(outcome.result))}`,
    `stderr:\n${outcome.stderr || '(empty)'}`,
    outcome.result === undefined ? `stdout (tail):\n${outcome.stdout.slice(-2000)}` : '',
    `requests the CLI sent: ${target.proxy.forwarded.map(callLine).join(', ') || 'none'}`,
    `connections refused by the loopback proxy: ${target.proxy.escapes.join(', ') || 'none'}`,
    `requests the upstream received: ${target.upstream.requests.length}`,
    `gateway log (last 30 lines):\n${target.gateway.logs.slice(-30).join('\n')}`,
  ].join('\n');
}

/** The CLI exited 0 with a successful result, having talked to nothing but the gateway; returns the printed text. */
export function expectCompleted(outcome: ClaudeCodeOutcome, target: ClaudeCodeTarget): string {
  const context = describeRun(outcome, target);
  expect(outcome.exitCode, context).toBe(0);
  expect(outcome.result, context).toMatchObject({ type: 'result', subtype: 'success', is_error: false });
  expect(target.proxy.escapes, context).toEqual([]);
  return String(outcome.result?.result);
}

/** The CLI printed `answer` as its result (see {@link expectCompleted}). */
export function expectAnswer(outcome: ClaudeCodeOutcome, target: ClaudeCodeTarget, answer: string): void {
  expect(expectCompleted(outcome, target), describeRun(outcome, target)).toBe(answer);
}

function callLine(request: ProxiedRequest): string {
  return `${request.method} ${request.path} -> ${request.status ?? 'no answer'}`;
}

/**
 * The message calls the CLI sent (each `POST /api/v1/messages?beta=true`, answered 200), after checking it
 * sent nothing else and the upstream got one call per turn.
 */
export function messageCalls(target: ClaudeCodeTarget, count: number): ProxiedRequest[] {
  expect(target.proxy.forwarded.map(callLine)).toEqual(Array.from({ length: count }, () => 'POST /api/v1/messages?beta=true -> 200'));
  expect(target.upstream.requests, 'one upstream call per turn').toHaveLength(count);
  return target.proxy.forwarded;
}

/** The token counts the CLI asked for (`POST /api/v1/messages/count_tokens?beta=true`, each answered 200), and nothing else. */
export function countTokensCalls(target: ClaudeCodeTarget): ProxiedRequest[] {
  const calls = target.proxy.forwarded;
  expect(calls.length).toBeGreaterThan(0);
  expect(calls.map(callLine)).toEqual(calls.map(() => 'POST /api/v1/messages/count_tokens?beta=true -> 200'));
  return calls;
}

/** The CLI sent the gateway key in the header its variable names, and only there. */
export function expectCallerKeyHeader(call: ProxiedRequest, variable: ClaudeKeyVariable, key: string): void {
  const other = KEY_HEADER[variable] === 'authorization' ? 'x-api-key' : 'authorization';
  expect(call.headers[KEY_HEADER[variable]]).toBe(variable === 'ANTHROPIC_AUTH_TOKEN' ? `Bearer ${key}` : key);
  expect(call.headers[other]).toBeUndefined();
}

/** The caller's gateway key appears in no header and nowhere in the body the upstream received. */
export function expectCallerKeyWithheld(sent: RecordedRequest, key: string): void {
  expect(JSON.stringify(sent.headers)).not.toContain(key);
  expect(sent.rawBody).not.toContain(key);
}

/** A fresh working directory holding one file for the CLI's `Read` tool. */
export interface ProbeWorkspace {
  cwd: string;
  file: string;
  content: string;
  remove(): void;
}

/** Writes `probe.txt` with a distinctive line into a new temporary directory. */
export function probeWorkspace(): ProbeWorkspace {
  const cwd = mkdtempSync(join(tmpdir(), 'switchboard-claude-code-work-'));
  const content = `probe ${Math.random().toString(36).slice(2, 10)}: the gateway carried this file`;
  const file = join(cwd, 'probe.txt');
  writeFileSync(file, `${content}\n`);
  return { cwd, file, content, remove: () => rmSync(cwd, { recursive: true, force: true }) };
}

/** An Anthropic streamed answer asking for Claude Code's `Read` tool on `file`. */
export function anthropicReadCall(file: string): FakeReply {
  const usage = { input_tokens: 420, output_tokens: 1 };
  return reply.events([
    { type: 'message_start', message: { id: 'msg_01ReadProbe', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, stop_sequence: null, usage } },
    { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_01ReadProbe', name: 'Read', input: {} } },
    { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify({ file_path: file }) } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 24 } },
    { type: 'message_stop' },
  ]);
}

/** An OpenAI Chat Completions stream asking for a `Read` function call on `file`, arguments in two pieces. */
export function openAiReadCall(file: string, callId: string): FakeReply {
  const chunk = (choice: Record<string, unknown> | undefined, usage: Record<string, number> | null = null) => ({
    id: 'chatcmpl-ReadProbe',
    object: 'chat.completion.chunk',
    created: 1_790_000_000,
    model: 'gpt-5-mini-2025-08-07',
    choices: choice === undefined ? [] : [{ index: 0, logprobs: null, finish_reason: null, ...choice }],
    usage,
  });
  const argumentsText = JSON.stringify({ file_path: file });
  const half = Math.floor(argumentsText.length / 2);
  return reply.events([
    chunk({ delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: 'Read', arguments: '' } }] } }),
    chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: argumentsText.slice(0, half) } }] } }),
    chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: argumentsText.slice(half) } }] } }),
    chunk({ delta: {}, finish_reason: 'tool_calls' }),
    chunk(undefined, { prompt_tokens: 2900, completion_tokens: 31, total_tokens: 2931 }),
  ]);
}

/** The parts of a generation record (`GET /generations`) the Claude Code suites check. */
export interface RecordedGeneration {
  requested_model: string;
  model: string | null;
  provider: string | null;
  status: string;
  stop_reason: string | null;
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number; reasoning_tokens: number };
  cost: number;
}

/**
 * Every generation record the target's gateway holds, oldest first, once there are `total` of them (records
 * are written in batches shortly after each answer ends, so this polls); at most 100.
 */
export async function recordedGenerations(target: ClaudeCodeTarget, total: number): Promise<RecordedGeneration[]> {
  const { gateway } = target;
  for (let waited = 0; ; waited += 1) {
    const response = await fetch(`${gateway.baseUrl}/generations?limit=100`, { headers: { authorization: `Bearer ${gateway.management_key}` } });
    const records = ((await response.json()) as { data: RecordedGeneration[] }).data;
    if (records.length >= total) return records.reverse();
    if (waited > 100) throw new Error(`${records.length} generation records, expected ${total}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
