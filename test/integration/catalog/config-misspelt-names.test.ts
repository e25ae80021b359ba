/**
 * `switchboard serve` (the real command, as a child process) refusing a configuration file that misspells a
 * built-in provider or model: the file then declares a new one, which lacks what a new one needs. The message
 * says the name is not built in and which built-in name is meant, rather than only asking for fields.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const CLI = new URL('../../../src/cli.ts', import.meta.url).pathname;

let directory: string;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'switchboard-config-names-'));
});
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** The exit code and output of `switchboard serve` with this configuration file. */
function serveUntilExit(yaml: string): Promise<{ file: string; code: number | null; output: string }> {
  const file = join(directory, `switchboard-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', PORT: '0', SWITCHBOARD_DATA_DIR: join(directory, 'data'), SWITCHBOARD_CONFIG: file },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ file, code, output })));
}

it.each([
  [
    'a built-in provider',
    'providers:\n  antropic: { api_key: sk-ant-example }\n',
    'providers.antropic: is not a built-in provider (did you mean anthropic?); a new provider needs family and base_url',
  ],
  [
    'a built-in model',
    'models:\n  anthropic/claude-sonet-4.5:\n    endpoints:\n      - { provider: anthropic, pricing: { input: 2.5 } }\n',
    'models.anthropic/claude-sonet-4.5: is not a built-in model (did you mean anthropic/claude-sonnet-4.5?); a new model needs endpoints with model and pricing',
  ],
])('names the misspelt %s and the one meant', async (_name, yaml, message) => {
  const { file, code, output } = await serveUntilExit(yaml);
  expect(code).toBe(1);
  expect(output).toBe(`switchboard: Invalid configuration file ${file}:\n  ${message}\n`);
});
