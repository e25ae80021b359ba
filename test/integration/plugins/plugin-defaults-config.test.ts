/**
 * Default plugins the gateway cannot run: a configuration whose `plugins.defaults` enable `moderation` without
 * a moderation model (or `web` without a search backend) is refused at start-up, naming the entry, instead of
 * a gateway that answers every request of that workspace or key with a 400 for a plugin its client never
 * asked for. A disabled default is accepted.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, messageBody, modelYaml, postMessage } from '#test/integration/routing/routing-support.ts';

const WORKSPACE = '6f1c2a9e-3b7d-4c1e-9a2f-0d8e5b4c3a21';
const started: TestGateway[] = [];
const upstreams: FakeUpstream[] = [];

afterAll(async () => {
  await Promise.all(started.map((gateway) => gateway.close()));
  await Promise.all(upstreams.map((upstream) => upstream.close()));
});

async function configWithDefaults(entries: string): Promise<string> {
  const upstream = await startFakeAnthropic();
  upstreams.push(upstream);
  const catalog = catalogYaml([anthropicProviderYaml('alpha', upstream)], [modelYaml('test/chat', [{ provider: 'alpha', model: 'claude-chat', price: [1, 2] }])]);
  return [catalog, 'plugins:', '  defaults:', `    workspaces: { "${WORKSPACE}": ${entries} }`, ''].join('\n');
}

describe('default plugins the gateway cannot run', () => {
  it('refuse to start, naming the default that enables moderation without a moderation model', async () => {
    const starting = startTestGateway({ catalogYaml: await configWithDefaults('[{ id: response-healing }, { id: moderation }]') });
    // Were it to start, it would be closed with the others.
    void starting.then((gateway) => started.push(gateway)).catch(() => undefined);

    await expect(starting).rejects.toThrow(`plugins.defaults.workspaces.${WORKSPACE}[1]: enables the moderation plugin, but plugins.moderation names no moderation model`);
  });

  it('refuse to start, naming the default that enables web without a search backend', async () => {
    const starting = startTestGateway({ catalogYaml: await configWithDefaults('[{ id: web, max_results: 3 }]') });
    void starting.then((gateway) => started.push(gateway)).catch(() => undefined);

    await expect(starting).rejects.toThrow(`plugins.defaults.workspaces.${WORKSPACE}[0]: enables the web plugin, but server_tools.web_search configures no search backend`);
  });

  it('start with such a default disabled, and serve requests', async () => {
    const gateway = await startTestGateway({ catalogYaml: await configWithDefaults('[{ id: moderation, enabled: false }]') });
    started.push(gateway);
    upstreams.at(-1)?.enqueue(reply.fixture('anthropic-text'));

    const call = await postMessage(gateway, messageBody('test/chat'));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
  });
});
