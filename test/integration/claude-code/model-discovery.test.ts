/**
 * Claude Code's gateway model discovery, with the real CLI: with `CLAUDE_CODE_ENABLE_GATEWAY_MODEL_DISCOVERY`
 * set next to `ANTHROPIC_BASE_URL`, the CLI asks `GET /v1/models?limit=1000` with the key it sends to
 * `/messages`, checks the body's shape (`data[].id`, an optional `display_name` string, a nullish
 * `description`), keeps the ids naming Claude (`/(claude|anthropic)/i`) and caches them in its config
 * directory (`cache/gateway-models.json`) for its `/model` picker. A body it cannot read, or a refused call,
 * leaves the picker without the gateway's models and only a debug line says why; the cache is what a user sees.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStep, startFakeAnthropic } from '#test/helpers/fake-upstreams/index.ts';
import type { ClaudeKeyVariable } from '#test/helpers/claude-code/run-claude-code.ts';
import { describeRun, expectAnswer, expectCallerKeyHeader, KEY_VARIABLES, resetTarget, runAgainst, startClaudeCodeTarget, type ClaudeCodeTarget } from './claude-code-support.ts';

const SHARED_KEY = 'sk-ant-shared-model-discovery-0001';
const ANSWER = 'Served by a discovered model.';

let target: ClaudeCodeTarget;

beforeAll(async () => {
  target = await startClaudeCodeTarget({
    startUpstream: () => startFakeAnthropic(),
    providerYaml: (upstream) => `  anthropic: { base_url: "${upstream.url}", api_key: "${SHARED_KEY}" }`,
  });
});
afterAll(() => target?.close());

interface DiscoveredModel {
  id: string;
  display_name?: string;
}

/** What `GET /models` lists for the target's key, every page. */
async function listedModels(): Promise<DiscoveredModel[]> {
  const answer = await fetch(`${target.gateway.origin}/api/v1/models?limit=1000`, { headers: { authorization: `Bearer ${target.gateway.api_key}` } });
  expect(answer.status).toBe(200);
  const page = (await answer.json()) as { data: DiscoveredModel[]; has_more: boolean };
  expect(page.has_more).toBe(false);
  return page.data;
}

/** Runs the CLI once with discovery on and a config directory the test reads afterwards. */
async function runWithDiscovery(variable: ClaudeKeyVariable, model?: string) {
  const configDirectory = mkdtempSync(join(tmpdir(), 'switchboard-claude-config-'));
  try {
    const outcome = await runAgainst(target, {
      prompt: 'Say hello.',
      variable,
      ...(model === undefined ? {} : { model }),
      extraEnv: { CLAUDE_CODE_ENABLE_GATEWAY_MODEL_DISCOVERY: '1', CLAUDE_CONFIG_DIR: configDirectory },
      timeoutMs: 40_000,
    });
    let cache: { baseUrl: string; models: DiscoveredModel[] } | undefined;
    try {
      cache = JSON.parse(readFileSync(join(configDirectory, 'cache', 'gateway-models.json'), 'utf8')) as typeof cache;
    } catch {
      cache = undefined;
    }
    return { outcome, cache };
  } finally {
    rmSync(configDirectory, { recursive: true, force: true });
  }
}

describe.each(KEY_VARIABLES)('Claude Code model discovery with %s', (variable) => {
  it('caches every Claude model the gateway lists, and a discovered id serves a turn', async () => {
    resetTarget(target);
    target.upstream.enqueue(anthropicStep({ text: ANSWER, usage: { input: 900, output: 8 } }));
    const { outcome, cache } = await runWithDiscovery(variable);
    expectAnswer(outcome, target, ANSWER);
    const discovery = target.proxy.forwarded.find((call) => call.method === 'GET');
    expect(discovery?.path, describeRun(outcome, target)).toBe('/api/v1/models?limit=1000');
    expect(discovery?.status).toBe(200);
    expectCallerKeyHeader(discovery!, variable, target.gateway.api_key);

    const claudeModels = (await listedModels()).filter((model) => /(claude|anthropic)/i.test(model.id));
    expect(claudeModels.length).toBeGreaterThan(0);
    expect(cache, `the CLI cached no gateway models\n${describeRun(outcome, target)}`).toBeDefined();
    expect(cache!.baseUrl).toBe(`${target.gateway.origin}/api`);
    expect(cache!.models).toEqual(claudeModels.map((model) => ({ id: model.id, display_name: model.display_name })));

    // A user picks a discovered model: its id is a gateway slug the CLI sends as it is.
    const picked = cache!.models.find((model) => model.id === 'anthropic/claude-sonnet-4.5') ?? cache!.models[0]!;
    resetTarget(target);
    target.upstream.enqueue(anthropicStep({ text: ANSWER, usage: { input: 900, output: 8 } }));
    const second = await runWithDiscovery(variable, picked.id);
    expectAnswer(second.outcome, target, ANSWER);
    const turn = target.proxy.forwarded.find((call) => call.method === 'POST');
    expect((turn?.body as { model: string }).model, describeRun(second.outcome, target)).toBe(picked.id);
    expect(target.upstream.requests).toHaveLength(1);
    expect((target.upstream.requests[0]?.body as { model: string }).model).toMatch(/^claude-/);
  });
});
