/**
 * The plugin list over HTTP: an unknown id and an id listed twice are 400s naming them; a plugin the gateway
 * is not configured for is a 400 saying what is missing; default plugins from SWITCHBOARD_CONFIG apply per
 * workspace and per key (the key's replacing the workspace's per id), and a request's own entry replaces a
 * default (`enabled: false` turns it off).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '#src/config.ts';
import { createLogger } from '#src/logger.ts';
import { startServer, type RunningServer } from '#src/server.ts';
import { readFixture, reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { WITH_METADATA, anthropicProviderYaml, catalogYaml, errorMessage, messageBody, modelYaml, postMessage, type GatewayHandle } from '#test/integration/routing/routing-support.ts';

let upstream: FakeUpstream;
let gateway: TestGateway;
let withDefaults: RunningServer;
let directory: string;
let defaultsHandle: GatewayHandle;
let secondKey: string;

const CATALOG = () => catalogYaml([anthropicProviderYaml('alpha', upstream)], [modelYaml('test/chat', [{ provider: 'alpha', model: 'claude-chat', price: [1, 2] }])]);

beforeAll(async () => {
  upstream = await startFakeAnthropic();
  gateway = await startTestGateway({ catalogYaml: CATALOG() });
  const created = await callApi<{ data: { key: string; hash: string } }>(gateway.baseUrl, 'POST', '/keys', { key: gateway.management_key, body: { kind: 'inference', name: 'second' } });
  expect(created.status).toBe(201);
  secondKey = created.body.data.key;
  // A second instance on the same database, whose configuration names the account's workspace and second key.
  directory = mkdtempSync(join(tmpdir(), 'switchboard-plugin-defaults-'));
  const file = join(directory, 'switchboard.yaml');
  writeFileSync(
    file,
    [
      CATALOG(),
      'plugins:',
      '  defaults:',
      `    workspaces: { "${gateway.workspace_id}": [{ id: response-healing }] }`,
      `    keys: { "${created.body.data.hash}": [{ id: response-healing, enabled: false }, { id: context-compression }] }`,
      '',
    ].join('\n'),
  );
  const env = { PORT: '0', SWITCHBOARD_VALIDATE_RESPONSES: 'true', SWITCHBOARD_MASTER_KEY: 'zZ8xQm3r5kq7b1vY2n0cL4sW6tH9uJ3eA5dF7gK1pR8=', SWITCHBOARD_CONFIG: file };
  withDefaults = await startServer({ config: loadConfig(env), logger: createLogger({ level: 'error', sink: () => undefined }), database: gateway.server.database, env });
  defaultsHandle = { ...gateway, origin: withDefaults.origin, baseUrl: `${withDefaults.origin}/api/v1` };
});
afterAll(async () => {
  await withDefaults?.close();
  await gateway?.close();
  await upstream?.close();
  if (directory) rmSync(directory, { recursive: true, force: true });
});
beforeEach(() => upstream.clear());

describe('the plugin list', () => {
  it('answers 400 naming an unknown plugin id', async () => {
    const call = await postMessage(gateway, messageBody('test/chat', { plugins: [{ id: 'response-healing' }, { id: 'pdf-ocr' }] }));

    expect(call.status).toBe(400);
    expect(errorMessage(call)).toBe(
      'Invalid request parameters: plugins[1].id: unknown plugin "pdf-ocr" (this gateway has auto-router, response-healing, context-compression, file-parser, moderation, web-fetch, web)',
    );
    expect(upstream.requests).toHaveLength(0);
  });

  it('answers 400 when a plugin is listed twice', async () => {
    const call = await postMessage(gateway, messageBody('test/chat', { plugins: [{ id: 'context-compression' }, { id: 'file-parser' }, { id: 'context-compression', enabled: false }] }));

    expect(call.status).toBe(400);
    expect(errorMessage(call)).toBe('Invalid request parameters: plugins[2].id: the plugin context-compression is listed twice (plugins[0] and plugins[2])');
  });

  it('answers 400 naming a setting the plugin does not have', async () => {
    const call = await postMessage(gateway, messageBody('test/chat', { plugins: [{ id: 'file-parser', pdf: { engine: 'mistral-ocr' } }] }));

    expect(call.status).toBe(400);
    expect(call.body.error).toMatchObject({ details: { error_code: 'invalid_request_parameters', parameters: [{ path: '/body/plugins/0/pdf/engine' }] } });
  });

  it.each([
    ['moderation', 'the moderation plugin is not available: this gateway has no moderation model configured (plugins.moderation)'],
    ['web', 'the web plugin is not available: this gateway has no search backend configured (server_tools.web_search)'],
  ])('answers 400 for %s when the gateway is not configured for it', async (id, reason) => {
    const call = await postMessage(gateway, messageBody('test/chat', { plugins: [{ id }] }));

    expect(call.status).toBe(400);
    expect(errorMessage(call)).toBe(`Invalid request parameters: ${reason}`);
    expect(upstream.requests).toHaveLength(0);
  });

  it('accepts a disabled entry for a plugin the gateway is not configured for', async () => {
    upstream.enqueue(reply.fixture('anthropic-text'));
    const call = await postMessage(gateway, messageBody('test/chat', { plugins: [{ id: 'moderation', enabled: false }] }));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
  });
});

function structured(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return messageBody('test/chat', { output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: { total: { type: 'number' } } } } }, ...extra });
}

function brokenAnswer() {
  const recorded = readFixture<Record<string, unknown>>('anthropic', 'anthropic-json-output-format.1');
  return reply.json({ ...recorded, content: [{ type: 'text', text: '{"total": 42,}' }] });
}

function reportIds(call: { body: Record<string, unknown> }): string[] {
  return ((call.body.gateway_metadata as { plugins?: { id: string }[] }).plugins ?? []).map((report) => report.id);
}

describe('default plugins from SWITCHBOARD_CONFIG', () => {
  it('apply the workspace\'s defaults to a request without plugins', async () => {
    upstream.enqueue(brokenAnswer());
    const call = await postMessage(defaultsHandle, structured(), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect((call.body.content as { text: string }[])[0]?.text).toBe('{"total": 42}');
    expect(reportIds(call)).toEqual(['response-healing']);
  });

  it('apply the key\'s defaults over the workspace\'s, per id', async () => {
    upstream.enqueue(brokenAnswer());
    const call = await postMessage({ ...defaultsHandle, api_key: secondKey }, structured(), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect((call.body.content as { text: string }[])[0]?.text).toBe('{"total": 42,}');
    expect(reportIds(call)).toEqual(['context-compression']);
  });

  it('yield to the request\'s own entry: enabled false turns a default off', async () => {
    upstream.enqueue(brokenAnswer());
    const call = await postMessage(defaultsHandle, structured({ plugins: [{ id: 'response-healing', enabled: false }] }), WITH_METADATA);

    expect((call.body.content as { text: string }[])[0]?.text).toBe('{"total": 42,}');
    expect(reportIds(call)).toEqual([]);
  });

  it('do not reach a gateway whose configuration has none', async () => {
    upstream.enqueue(brokenAnswer());
    const call = await postMessage(gateway, structured(), WITH_METADATA);

    expect((call.body.content as { text: string }[])[0]?.text).toBe('{"total": 42,}');
    expect(reportIds(call)).toEqual([]);
  });
});
