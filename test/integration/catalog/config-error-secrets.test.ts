/**
 * `switchboard serve` (the real command, as a child process) refusing a configuration file in which a value
 * read from the environment is wrong where it landed: a key variable written as a base URL, or variables
 * swapped. The file's message names the file, the path and the variable, and never prints the variable's
 * value, which is where the file's secrets live (the message goes to the operator's logs).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const CLI = new URL('../../../src/cli.ts', import.meta.url).pathname;
const OPENAI_KEY = 'sk-proj-Zt0pS3cr3tValueOfTheOpenAiKey';
// Longer than the 60 characters a quoted value is cut to: the part before the cut is the secret too.
const LONG_TOKEN = `lf-${'Q7w'.repeat(30)}`;
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

let directory: string;

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'switchboard-config-secrets-'));
});
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** The exit code and output of `switchboard serve` with this configuration file and environment. */
function serveUntilExit(yaml: string, env: Record<string, string>): Promise<{ file: string; code: number | null; output: string }> {
  const file = join(directory, `switchboard-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, yaml);
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', PORT: '0', SWITCHBOARD_DATA_DIR: join(directory, 'data'), SWITCHBOARD_CONFIG: file, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ file, code, output })));
}

it('names the variable, never its value, where a value read from the environment is wrong', async () => {
  const yaml = [
    'providers:',
    '  openai: { base_url: "${OPENAI_API_KEY}", auth: "${OPENAI_API_KEY}" }',
    '  bedrock:',
    '    aws: { region: "${AWS_SECRET_ACCESS_KEY}" }',
    'models:',
    '  openai/gpt-5:',
    '    endpoints:',
    '      - { provider: "${AWS_SECRET_ACCESS_KEY}", model: gpt-5, pricing: { input: 1, output: 1 } }',
    'observability:',
    '  destinations:',
    '    - { name: "${LANGFUSE_SECRET_KEY}", kind: langfuse, endpoint: "${LANGFUSE_SECRET_KEY}", public_key: pk, secret_key: s }',
    '',
  ].join('\n');
  const { file, code, output } = await serveUntilExit(yaml, { OPENAI_API_KEY: OPENAI_KEY, AWS_SECRET_ACCESS_KEY: AWS_SECRET, LANGFUSE_SECRET_KEY: LONG_TOKEN });
  expect(code).toBe(1);
  expect(output).toContain(`Invalid configuration file ${file}:`);
  expect(output).toContain('providers.openai.base_url: must be an http or https URL, got the value of ${OPENAI_API_KEY}');
  expect(output).toContain('providers.openai.auth: must be one of x-api-key, bearer, x-goog-api-key, api-key, aws, none, got the value of ${OPENAI_API_KEY}');
  expect(output).toContain('providers.bedrock.aws.region: must be an AWS region such as us-east-1, got the value of ${AWS_SECRET_ACCESS_KEY}');
  expect(output).toContain('observability.destinations[0].endpoint:');
  for (const secret of [OPENAI_KEY, AWS_SECRET, LONG_TOKEN, LONG_TOKEN.slice(0, 40), 'sk-proj-Zt0p', 'wJalrXUtnFEMI']) expect(output).not.toContain(secret);
  expect(output).not.toMatch(/\n\s+at /);
});

it('names the variable where a value from the environment is wrong only once the file is merged', async () => {
  const yaml = ['models:', '  openai/gpt-5:', '    endpoints:', '      - { provider: "${AWS_SECRET_ACCESS_KEY}", model: gpt-5, pricing: { input: 1, output: 1 } }', ''].join('\n');
  const lower = AWS_SECRET.toLowerCase().replaceAll(/[^a-z0-9]/g, '-');
  const { code, output } = await serveUntilExit(yaml, { AWS_SECRET_ACCESS_KEY: lower });
  expect(code).toBe(1);
  expect(output).toContain('models.openai/gpt-5.endpoints[0].provider: names no enabled provider (the value of ${AWS_SECRET_ACCESS_KEY} is neither built in nor declared under providers)');
  expect(output).not.toContain(lower);
});

it('never quotes a value that looks like a credential, typed literally into a field that is not a secret one', async () => {
  const anthropicKey = 'sk-ant-api03-Kq8vR2mZx7LtW4nB9cYp3DfH6jS1gA5eU0oIiMbNrTsQ-wXyZaB';
  const awsAccessKey = 'AKIAZ7QK3MX9TLV2RB4N';
  const randomToken = 'q7Rt2VbX9mKz4LpW8nCy3HdF6jGs1A5e';
  const yaml = [
    'providers:',
    `  anthropic: { base_url: "https://api.anthropic.com/${anthropicKey}x", auth: ${anthropicKey} }`,
    `  openai: { base_url: ${randomToken} }`,
    '  bedrock:',
    `    aws: { region: ${awsAccessKey} }`,
    'models:',
    '  openai/gpt-5:',
    '    endpoints:',
    `      - { provider: ${randomToken}, model: gpt-5, pricing: { input: 1, output: 1 } }`,
    '',
  ].join('\n');
  const { code, output } = await serveUntilExit(yaml, {});
  expect(code).toBe(1);
  expect(output).toContain('providers.anthropic.auth: must be one of x-api-key, bearer, x-goog-api-key, api-key, aws, none, got a value that looks like a credential (not shown)');
  expect(output).toContain('providers.openai.base_url: must be an http or https URL, got a value that looks like a credential (not shown)');
  expect(output).toContain('providers.bedrock.aws.region: must be an AWS region such as us-east-1, got a value that looks like a credential (not shown)');
  for (const secret of [anthropicKey.slice(0, 20), anthropicKey.slice(-20), awsAccessKey, randomToken, randomToken.slice(0, 12)]) expect(output).not.toContain(secret);
  expect(output).not.toMatch(/\n\s+at /);
});
