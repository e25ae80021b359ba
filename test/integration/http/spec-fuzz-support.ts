/**
 * Runs the spec-generated mistakes of spec-fuzz-cases.ts against a real gateway: one gateway per suite with
 * a fake Anthropic upstream, live ids to fill the path templates (a credential, a destination, a key, a
 * generation), and the checks every mistake must pass: a 4xx the mistake calls for, the body the spec documents
 * for that operation and status, a message naming the field, nothing of the server's insides, and stored state
 * as it was.
 */
import { expect } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { checkResponse } from '#test/helpers/spec-validator.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { useSuiteSetup } from '#test/helpers/suite-setup.ts';
import { keyKindOf, type FuzzCase } from '#test/integration/http/spec-fuzz-cases.ts';

/** The running gateway and the ids its path templates are filled with. */
export interface FuzzSetup {
  gateway: TestGateway;
  upstream: FakeUpstream;
  ids: Record<string, string>;
}

const MESSAGE = { model: 'anthropic/claude-sonnet-4.5', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };

/** Registers the suite's gateway, upstream and live resources. */
export function useFuzzSetup(): FuzzSetup {
  return useSuiteSetup<FuzzSetup>({
    async start() {
      const upstream = await startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') });
      const gateway = await startTestGateway({ catalogYaml: `providers:\n  anthropic: { base_url: "${upstream.url}", api_key: "sk-ant-shared-fuzz-0001" }\n` });
      const management = { key: gateway.management_key };
      const credential = await callApi(gateway.baseUrl, 'POST', '/byok', { ...management, body: { provider: 'anthropic', key: 'sk-ant-fuzz-0001', name: 'fuzzed' } });
      const destination = await callApi(gateway.baseUrl, 'POST', '/observability/destinations', { ...management, body: { name: 'fuzzed', kind: 'otlp', endpoint: 'https://collector.example/v1/traces' } });
      const key = await callApi(gateway.baseUrl, 'POST', '/keys', { ...management, body: { kind: 'inference', name: 'fuzzed' } });
      const served = await fetch(`${gateway.baseUrl}/messages`, { method: 'POST', headers: { 'x-api-key': gateway.api_key, 'content-type': 'application/json' }, body: JSON.stringify(MESSAGE) });
      await served.arrayBuffer();
      const ids: Record<string, string> = {
        '/byok/{id}': credential.body.data.id,
        '/observability/destinations/{id}': destination.body.data.id,
        '/keys/{hash}': key.body.data.hash,
        '/generations/{id}': served.headers.get('x-generation-id') ?? '',
        '/models/{model_id}': encodeURIComponent(MESSAGE.model),
      };
      return { gateway, upstream, ids };
    },
    async stop(setup) {
      await setup.gateway.close();
      await setup.upstream.close();
    },
  });
}

/** What a write to `template` could change, as the API reads it back: its collection, or the settings. */
async function storedState(gateway: TestGateway, template: string): Promise<unknown> {
  const collection = template.replace(/\/\{[a-z_]+\}$/, '');
  const path = collection === '/workspace/settings' ? collection : `${collection}?limit=100`;
  return (await callApi(gateway.baseUrl, 'GET', path, { key: gateway.management_key })).body;
}

// What a body must not show: stack frames, source or install paths, JavaScript error class names, the database.
const INSIDES = /\bat \S+ \(|\bat (file|node):|\.(ts|js|mjs):\d+|node_modules|\/work\/|\/src\/|\b(Type|Syntax|Range|Reference|URI)Error\b|\bPGlite|drizzle|SQLSTATE|\bundefined\b|\[object Object\]/;

/** Sends one mistake and checks the answer; `write` also compares the stored state before and after. */
export async function sendMistake(setup: FuzzSetup, mistake: FuzzCase): Promise<void> {
  const { gateway, ids } = setup;
  const write = mistake.method !== 'GET' && !mistake.template.startsWith('/messages');
  const before = write ? await storedState(gateway, mistake.template) : undefined;
  const kind = keyKindOf(mistake.method, mistake.template);
  const auth: Record<string, string> = kind === 'none' ? {} : { authorization: `Bearer ${kind === 'inference' ? gateway.api_key : gateway.management_key}` };
  const path = ids[mistake.template] !== undefined ? mistake.path.replace(/\{[a-z_]+\}/, ids[mistake.template]!) : mistake.path;
  const url = `${gateway.baseUrl}${path}${mistake.query ? `?${mistake.query}` : ''}`;
  const response = await fetch(url, { method: mistake.method, headers: { ...auth, ...mistake.headers }, ...(mistake.body !== undefined ? { body: mistake.body } : {}) });
  const text = await response.text();
  const shown = `${response.status} ${text.slice(0, 600)}`;
  expect(mistake.statuses, shown).toContain(response.status);
  const body = JSON.parse(text) as { error: { message: string } };
  const contentType = response.headers.get('content-type') ?? '';
  expect(checkResponse({ path: mistake.template, method: mistake.method, status: response.status, contentType, body }).errors, shown).toEqual([]);
  if (mistake.names !== undefined) expect(body.error.message, shown).toContain(mistake.names);
  expect(text, shown).not.toMatch(INSIDES);
  if (write) expect(await storedState(gateway, mistake.template), `${mistake.operation} changed stored state`).toEqual(before);
}
