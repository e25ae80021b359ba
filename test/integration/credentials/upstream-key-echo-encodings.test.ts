/**
 * Vendors do not always quote a rejected key as it was sent: OpenAI masks its middle, a URL-carrying message
 * percent-encodes it, a "Basic" header or a debugging dump base64-encodes it, and Bedrock quotes the parts of
 * the AWS key pair it was signed with. Whichever way a fake upstream echoes the key (the operator's key or a
 * header token from the configuration, or a customer's BYOK key), in a JSON error or in an error event inside a stream, neither the
 * client's answer, nor the generation record, nor the webhook, OTLP or Langfuse export, nor `/metrics`, nor a
 * log line may hold any of those forms (or a run of the key longer than the four characters its masked label shows).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, startFakeBedrock, startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { distinctiveKey } from '#test/helpers/credential-gateway.ts';
import { secretFormsIn } from '#test/helpers/secret-forms.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { catalogYaml, createCredential, deleteCredential, messageBody, modelYaml } from '#test/integration/routing/routing-support.ts';

// Characters that percent-encoding and base64 both change, as AWS secret keys have them.
const OPERATOR_KEY = `${distinctiveKey('operatorkey')}/+Zq`;
const PROXY_TOKEN = `${distinctiveKey('proxytoken')}+/=`;
const AWS_ACCESS_KEY_ID = 'ASIAECHOTEST00000001';
const AWS_SECRET = `echo/secret+access/${distinctiveKey('awssecret')}`;
const AWS_SESSION_TOKEN = `IQoJb3JpZ2luX2VjE${distinctiveKey('sessiontoken')}/+==`;

/** Every way a vendor was seen to quote a key, and the forms a test looks for afterwards. */
const ECHOES: readonly [string, (key: string) => string][] = [
  ['whole', (key) => key],
  ['masked in the middle', (key) => `${key.slice(0, 14)}${'*'.repeat(20)}${key.slice(-4)}`],
  ['percent-encoded in a URL', (key) => `https://api.example.test/v1/chat?key=${encodeURIComponent(key)}`],
  ['base64 in a Basic header', (key) => `Basic ${Buffer.from(`user:${key}`).toString('base64')}`],
  ['base64url', (key) => Buffer.from(key).toString('base64url')],
];

let gateway: TestGateway;
let hooks: CaptureServer;
let chat: FakeUpstream;
let bedrock: FakeUpstream;

beforeAll(async () => {
  chat = await startFakeOpenAiChat();
  bedrock = await startFakeBedrock();
  const aws = `aws: { region: us-east-1, access_key_id: "${AWS_ACCESS_KEY_ID}", secret_access_key: "${AWS_SECRET}", session_token: "${AWS_SESSION_TOKEN}" }`;
  gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [
        `  echo-operator: { family: openai-chat, base_url: "${chat.baseURL}", display_name: "echo-operator", api_key: "${OPERATOR_KEY}" }`,
        `  echo-proxied: { family: openai-compatible, base_url: "${chat.baseURL}", display_name: "echo-proxied", api_key: "sk-proxied-0000000001", headers: { X-Proxy-Token: "${PROXY_TOKEN}" } }`,
        `  echo-byok: { family: openai-chat, base_url: "${chat.baseURL}", display_name: "echo-byok", api_key: "" }`,
        `  echo-bedrock: { family: bedrock, base_url: "${bedrock.url}", display_name: "echo-bedrock", ${aws} }`,
      ],
      [
        modelYaml('test/echo-operator', [{ provider: 'echo-operator', model: 'up-operator', price: [1, 2] }]),
        modelYaml('test/echo-proxied', [{ provider: 'echo-proxied', model: 'up-proxied', price: [1, 2] }]),
        modelYaml('test/echo-byok', [{ provider: 'echo-byok', model: 'up-byok', price: [1, 2] }]),
        modelYaml('test/echo-bedrock', [{ provider: 'echo-bedrock', model: 'up-bedrock', price: [1, 2] }]),
      ],
    ),
    env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' },
  });
  hooks = await startCaptureServer();
  for (const body of [
    { name: 'hook', kind: 'webhook', endpoint: `${hooks.url}/hook`, signing_secret: 'whsec_0123456789abcdef0123' },
    { name: 'traces', kind: 'otlp', endpoint: `${hooks.url}/v1/traces`, protocol: 'http/json' },
    { name: 'langfuse', kind: 'langfuse', endpoint: `${hooks.url}/langfuse`, public_key: 'pk-lf-echo', secret_key: 'sk-lf-echo-0000' },
  ]) {
    const destination = await callApi(gateway.baseUrl, 'POST', '/observability/destinations', { key: gateway.management_key, body });
    expect(destination.status, JSON.stringify(destination.body)).toBe(201);
  }
});

afterAll(async () => {
  await gateway?.close();
  await Promise.all([chat, bedrock, hooks].map((server) => server?.close()));
});

beforeEach(() => {
  chat.clear();
  bedrock.clear();
});

/** What the webhook, the OTLP collector and Langfuse received about a generation, once each received it. */
async function waitForDeliveries(generationId: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    await gateway.server.flushRecords();
    const received = hooks.requests.filter((request) => request.body.toString('utf8').includes(generationId));
    const paths = new Set(received.map((request) => request.path.split('/')[1]));
    if (paths.has('hook') && paths.has('v1') && paths.has('langfuse')) {
      // Each export carries the vendor's words, so each had a way to carry the key.
      for (const path of paths) expect(received.filter((request) => request.path.split('/')[1] === path).map((request) => request.body.toString('utf8')).join(), path).toContain('is not valid');
      return received.map((request) => request.body.toString('utf8')).join('\n');
    }
    if (Date.now() > deadline) throw new Error(`not every destination received ${generationId}: ${[...paths].join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Sends one request that the upstream refuses with `said`, and checks every output for each key. */
async function expectEchoHidden(model: string, keys: readonly string[], options: { stream: boolean }): Promise<void> {
  const logsBefore = gateway.logs.length;
  // Read as text: a stream that fails after its first byte ends in an `error` event, not a JSON body.
  const response = await fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify(messageBody(model, { stream: options.stream })),
  });
  const answer = await response.text();
  // The vendor's own words still arrive, so the key had a way out.
  expect(answer).toContain('is not valid');
  const generationId = response.headers.get('x-generation-id') ?? '';
  const record = JSON.stringify(await generationOf(gateway, generationId));
  const delivered = await waitForDeliveries(generationId);
  const metrics = await (await fetch(`${gateway.baseUrl}/metrics`, { headers: { authorization: `Bearer ${gateway.management_key}` } })).text();
  const logs = gateway.logs.slice(logsBefore).join('\n');
  expect([
    ...secretFormsIn(answer, keys, 'the answer'),
    ...secretFormsIn(record, keys, 'the generation record'),
    ...secretFormsIn(delivered, keys, 'the webhook, OTLP and Langfuse exports'),
    ...secretFormsIn(metrics, keys, '/metrics'),
    ...secretFormsIn(logs, keys, 'the log lines'),
  ]).toEqual([]);
}

describe.each(ECHOES)('a vendor quoting the key %s', (_name, echo) => {
  it.each([[false], [true]])('hides the operator key of an OpenAI-format provider (stream %s)', async (stream) => {
    chat.enqueue(reply.error(400, { message: `The API key ${echo(OPERATOR_KEY)} is not valid for this project` }));
    await expectEchoHidden('test/echo-operator', [OPERATOR_KEY], { stream });
  });

  it('hides the token of a configured provider header', async () => {
    chat.enqueue(reply.error(400, { message: `The proxy token ${echo(PROXY_TOKEN)} is not valid` }));
    await expectEchoHidden('test/echo-proxied', [PROXY_TOKEN], { stream: false });
  });

  it.each([[false], [true]])('hides a customer\'s BYOK key (stream %s)', async (stream) => {
    const key = `${distinctiveKey('byokkey')}+/x`;
    const id = await createCredential(gateway, { provider: 'echo-byok', key });
    try {
      chat.enqueue(reply.error(400, { message: `The API key ${echo(key)} is not valid` }));
      await expectEchoHidden('test/echo-byok', [key], { stream });
    } finally {
      await deleteCredential(gateway, id);
    }
  });

  it('hides a BYOK key quoted in an error event after the stream has sent text', async () => {
    const key = `${distinctiveKey('byokkey')}+/x`;
    const id = await createCredential(gateway, { provider: 'echo-byok', key });
    try {
      chat.enqueue(reply.fixture('openai-text.chunks.txt', { streamError: { afterEvents: 4, status: 400, message: `The API key ${echo(key)} is not valid` } }));
      await expectEchoHidden('test/echo-byok', [key], { stream: true });
    } finally {
      await deleteCredential(gateway, id);
    }
  });

  it('hides the AWS key pair quoted in an exception inside a Bedrock stream', async () => {
    const said = `The security token ${echo(AWS_SESSION_TOKEN)} signed with ${echo(AWS_SECRET)} is not valid`;
    bedrock.enqueue(reply.fixture('amazon-bedrock-text.chunks.txt', { streamError: { afterEvents: 4, status: 400, message: said } }));
    await expectEchoHidden('test/echo-bedrock', [AWS_ACCESS_KEY_ID, AWS_SECRET, AWS_SESSION_TOKEN], { stream: true });
  });

  it('hides every part of the AWS key pair Bedrock was signed with', async () => {
    const said = `The security token ${echo(AWS_SESSION_TOKEN)} of ${echo(AWS_ACCESS_KEY_ID)} signed with ${echo(AWS_SECRET)} is not valid`;
    bedrock.enqueue(reply.error(400, { message: said }));
    await expectEchoHidden('test/echo-bedrock', [AWS_ACCESS_KEY_ID, AWS_SECRET, AWS_SESSION_TOKEN], { stream: false });
  });
});
