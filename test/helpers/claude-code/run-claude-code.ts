/**
 * Runs the real Claude Code CLI (the pinned devDependency) headless, as a user points it at the gateway, with
 * an environment built from scratch so nothing of the developer's shell (keys, proxies, config) leaks in, and
 * its home, temp and working directories fresh. Every connection it opens goes through a loopback proxy.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

/** The CLI binary npm installs for the devDependency `@anthropic-ai/claude-code`. */
export const CLAUDE_BINARY = new URL('../../../node_modules/.bin/claude', import.meta.url).pathname;

/** Which header the CLI carries the key in: `ANTHROPIC_AUTH_TOKEN` sends `Authorization: Bearer`, `ANTHROPIC_API_KEY` sends `x-api-key`. */
export type ClaudeKeyVariable = 'ANTHROPIC_AUTH_TOKEN' | 'ANTHROPIC_API_KEY';

/** What one CLI run needs. */
export interface ClaudeCodeRun {
  /** The prompt argument of `-p`; ignored when {@link ClaudeCodeRun.input} is given. */
  prompt: string;
  /**
   * User messages for `--input-format stream-json`, written to the CLI's stdin one JSON line each (then stdin
   * closes): how an SDK host sends content blocks, an image among them, instead of a prompt argument.
   */
  input?: ReadonlyArray<Record<string, unknown>>;
  /** The `--model` argument; absent, the CLI picks its own default model. */
  model?: string;
  /** The gateway's origin; the CLI gets `<origin>/api` as `ANTHROPIC_BASE_URL`. */
  gatewayOrigin: string;
  key: { variable: ClaudeKeyVariable; value: string };
  /** The loopback proxy every HTTP(S) connection must go through. */
  proxyUrl: string;
  /** The working directory (a fresh temporary one when absent). */
  cwd?: string;
  /**
   * The home directory, where the CLI keeps its sessions (a fresh temporary one when absent): two runs given
   * the same one (and the same `cwd`) can continue each other's session with `--continue` or `--resume`.
   */
  home?: string;
  /** Tools the CLI may run without asking (root cannot use --dangerously-skip-permissions). */
  allowedTools?: string[];
  /** Arguments after the usual ones (e.g. `--fallback-model haiku`). */
  extraArgs?: string[];
  /** Variables to set on top of {@link claudeCodeEnvironment}. */
  extraEnv?: Record<string, string>;
  /** Leaves out `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC`, to show what the loopback proxy catches without it. */
  allowNonessentialTraffic?: boolean;
  /** When the run is killed (default 60 s: a loaded machine's first run took over 20). */
  timeoutMs?: number;
}

/** How a run ended, with everything a failure message needs. */
export interface ClaudeCodeOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Each stream-json line of stdout, parsed (lines that are not JSON are skipped). */
  events: Array<Record<string, unknown>>;
  /** The final `{type: "result"}` event, when the CLI printed one. */
  result: Record<string, unknown> | undefined;
}

/**
 * The whole environment of a run: nothing inherited but `PATH`. `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC`
 * turns off what would leave the machine besides the API calls (telemetry and event export, error reporting,
 * the auto-updater, the MCP registry fetch); the proxy variables send any connection that remains through
 * the loopback proxy, which refuses and records it.
 */
export function claudeCodeEnvironment(run: ClaudeCodeRun, directories: { home: string; temp: string }): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: directories.home,
    TMPDIR: directories.temp,
    ANTHROPIC_BASE_URL: `${run.gatewayOrigin}/api`,
    [run.key.variable]: run.key.value,
    ...(run.allowNonessentialTraffic ? {} : { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }),
    // A failing gateway answer fails the run at once instead of after ten backed-off retries.
    CLAUDE_CODE_MAX_RETRIES: '0',
    HTTP_PROXY: run.proxyUrl,
    HTTPS_PROXY: run.proxyUrl,
    ...run.extraEnv,
  };
}

/** The command line of a run: print mode, stream-json output, the model (when given), the pre-approved tools. */
export function claudeCodeArguments(run: ClaudeCodeRun): string[] {
  const tools = run.allowedTools ?? [];
  const model = run.model === undefined ? [] : ['--model', run.model];
  const prompt = run.input === undefined ? ['-p', run.prompt] : ['-p', '--input-format', 'stream-json'];
  return [...prompt, ...model, '--output-format', 'stream-json', '--verbose', ...(tools.length > 0 ? ['--allowedTools', tools.join(',')] : []), ...(run.extraArgs ?? [])];
}

function parseLines(stdout: string): Array<Record<string, unknown>> {
  const events: Array<Record<string, unknown>> = [];
  for (const line of stdout.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value = JSON.parse(line) as unknown;
      if (typeof value === 'object' && value !== null) events.push(value as Record<string, unknown>);
    } catch {
      // The CLI prints only JSON lines in stream-json mode; anything else stays visible in `stdout`.
    }
  }
  return events;
}

/** Writes `input` to the child's stdin, one JSON line per message, and closes it. */
function withInput<T extends ChildProcessByStdio<Writable, Readable, Readable>>(child: T, input: ReadonlyArray<Record<string, unknown>>): T {
  child.stdin.end(input.map((message) => `${JSON.stringify(message)}\n`).join(''));
  return child;
}

/** Runs the CLI once and resolves when it exits (or is killed after `timeoutMs`). */
export async function runClaudeCode(run: ClaudeCodeRun): Promise<ClaudeCodeOutcome> {
  const root = mkdtempSync(join(tmpdir(), 'switchboard-claude-code-'));
  const home = run.home ?? join(root, 'home');
  const temp = join(root, 'tmp');
  const cwd = run.cwd ?? join(root, 'work');
  for (const directory of [home, temp, cwd]) mkdirSync(directory, { recursive: true, mode: 0o700 });
  try {
    const options = { cwd, env: claudeCodeEnvironment(run, { home, temp }) };
    const child = run.input === undefined ? spawn(CLAUDE_BINARY, claudeCodeArguments(run), { ...options, stdio: ['ignore', 'pipe', 'pipe'] }) : withInput(spawn(CLAUDE_BINARY, claudeCodeArguments(run), { ...options, stdio: ['pipe', 'pipe', 'pipe'] }), run.input);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), run.timeoutMs ?? 60_000);
    const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, killedBy) => resolve([code, killedBy]));
    }).finally(() => clearTimeout(timer));
    const events = parseLines(stdout);
    return { exitCode, signal, stdout, stderr, events, result: events.findLast((event) => event.type === 'result') };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
