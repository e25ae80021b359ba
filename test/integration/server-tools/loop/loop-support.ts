/**
 * The gateway the tool-loop suites run against: fake upstreams of four families on 127.0.0.1 scripted step
 * by step (two Anthropic-format providers for `test/claude`, OpenAI Chat Completions for `test/gpt`, Gemini
 * for `test/gemini`, Bedrock Converse for `test/bedrock`), and the gateway's tools pointed at fakes too: a
 * SearXNG instance, a web server on 127.0.0.1 (allowlisted for `gateway:web_fetch`) and the SDK-built MCP test
 * server. Prices per million tokens are round numbers so sums can be checked by hand.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startFakeAnthropic, startFakeBedrock, startFakeGemini, startFakeOpenAiChat, type FakeUpstream, type RecordedRequest } from '#test/helpers/fake-upstreams/index.ts';
import { startFakeSearxng } from '#test/helpers/fake-tool-servers/fake-searxng.ts';
import { startFakeWebServer, type FakeWebServer, type Route } from '#test/helpers/fake-tool-servers/fake-web-server.ts';
import { startMcpTestServer, type McpTestServer } from '#test/helpers/fake-tool-servers/mcp-test-server.ts';
import type { ScriptedServer } from '#test/helpers/fake-tool-servers/scripted-json-server.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import type { Message, MessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { ToolLoopStep } from '#src/api-types.ts';
import { anthropicClient, anthropicProviderYaml, catalogYaml, modelYaml, WITH_METADATA, type RoutingMetadata } from '#test/integration/routing/routing-support.ts';
import { finalStreamUsage, type GatewayUsage } from '#test/integration/providers-e2e/e2e-support.ts';

/** Everything a loop suite talks to. */
export interface LoopGateway {
  alpha: FakeUpstream;
  beta: FakeUpstream;
  openai: FakeUpstream;
  gemini: FakeUpstream;
  bedrock: FakeUpstream;
  searxng: ScriptedServer;
  web: FakeWebServer;
  mcp: McpTestServer;
  gateway: TestGateway;
}

/** Prices (USD per million tokens, input and output) of the test models. */
export const PRICES = { claude: [3, 15], gpt: [1, 4], gemini: [2, 12], bedrock: [3, 15] } as const;

/** Options of the loop gateway. */
export interface LoopGatewayOptions {
  /** Routes of the web server `gateway:web_fetch` may reach. */
  webRoutes?: Record<string, Route>;
  /** Extra environment (e.g. a short request time budget). */
  env?: Record<string, string>;
}

async function startLoopGateway(options: LoopGatewayOptions): Promise<LoopGateway & { close(): Promise<void> }> {
  const [alpha, beta, openai, gemini, bedrock, searxng, web, mcp] = await Promise.all([
    startFakeAnthropic(),
    startFakeAnthropic(),
    startFakeOpenAiChat(),
    startFakeGemini(),
    startFakeBedrock(),
    startFakeSearxng(),
    startFakeWebServer(options.webRoutes ?? {}),
    startMcpTestServer(),
  ]);
  const providers = [
    anthropicProviderYaml('alpha', alpha),
    anthropicProviderYaml('beta', beta),
    `  openai: { base_url: "${openai.baseURL}", api_key: "sk-openai-loop-0001", family: openai-chat }`,
    `  google: { base_url: "${gemini.baseURL}", api_key: "AIzaSy-loop-gemini-0001" }`,
    `  bedrock: { base_url: "${bedrock.url}", aws: { region: us-east-1, access_key_id: "AKIALOOPTEST00000001", secret_access_key: "loop/secret/access/key/000000000000000001" } }`,
  ];
  const models = [
    modelYaml('test/claude', [
      { provider: 'alpha', model: 'up-claude-alpha', price: [...PRICES.claude] },
      { provider: 'beta', model: 'up-claude-beta', price: [...PRICES.claude] },
    ]),
    modelYaml('test/gpt', [{ provider: 'openai', model: 'gpt-loop', price: [...PRICES.gpt] }]),
    modelYaml('test/gemini', [{ provider: 'google', model: 'gemini-loop', price: [...PRICES.gemini] }]),
    modelYaml('test/bedrock', [{ provider: 'bedrock', model: 'anthropic.claude-loop-v1:0', price: [...PRICES.bedrock] }]),
  ];
  const serverTools = [
    'server_tools:',
    `  web_search: { backend: searxng, base_url: "${searxng.origin}" }`,
    '  web_fetch: { private_network_allowlist: ["127.0.0.1"], timeout_ms: 5000 }',
    '  mcp_servers:',
    `    orders: { url: "${mcp.url}", timeout_ms: 5000 }`,
  ];
  const gateway = await startTestGateway({ catalogYaml: `${catalogYaml(providers, models)}${serverTools.join('\n')}\n`, ...(options.env ? { env: options.env } : {}) });
  const upstreams = [alpha, beta, openai, gemini, bedrock];
  return {
    alpha,
    beta,
    openai,
    gemini,
    bedrock,
    searxng,
    web,
    mcp,
    gateway,
    async close() {
      await gateway.close();
      await Promise.all([...upstreams.map((upstream) => upstream.close()), searxng.close(), web.close(), mcp.close()]);
    },
  };
}

/** Starts the loop gateway before the file's tests, stops it after them, and forgets what the fakes recorded before each test. */
export function useLoopGateway(options: LoopGatewayOptions = {}): Readonly<LoopGateway> {
  let started: (LoopGateway & { close(): Promise<void> }) | undefined;
  beforeAll(async () => {
    started = await startLoopGateway(options);
  });
  afterAll(() => started?.close());
  beforeEach(() => {
    const running = get();
    for (const upstream of [running.alpha, running.beta, running.openai, running.gemini, running.bedrock]) upstream.clear();
    running.searxng.requests.length = 0;
    running.web.paths.length = 0;
  });
  const get = () => {
    if (!started) throw new Error('the loop gateway is read before its beforeAll started it');
    return started;
  };
  return new Proxy({} as LoopGateway, { get: (_target, name) => get()[name as keyof LoopGateway] });
}

/** The body an upstream received, as an object. */
export function bodyOf(request: RecordedRequest | undefined): Record<string, unknown> {
  return (request?.body ?? {}) as Record<string, unknown>;
}

/** The messages an Anthropic-format upstream received. */
export function messagesOf(request: RecordedRequest | undefined): { role: string; content: unknown }[] {
  return (bodyOf(request).messages ?? []) as { role: string; content: unknown }[];
}

/** Names of the tools an Anthropic-format upstream was offered. */
export function toolNamesOf(request: RecordedRequest | undefined): string[] {
  return ((bodyOf(request).tools ?? []) as { name?: string; type?: string }[]).map((tool) => tool.name ?? String(tool.type));
}

/** A message request for a test model with the given tools. */
export function loopBody(model: string, tools: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model, max_tokens: 256, messages: [{ role: 'user', content: 'What time is it in Paris?' }], tools, ...extra };
}

/** The conversation of a request whose user names `url`, which web_fetch may then fetch (a loopBody extra). */
export function askingToRead(url: string): { messages: { role: 'user'; content: string }[] } {
  return { messages: [{ role: 'user', content: `What does ${url} say?` }] };
}

/** What a client reads of one loop, JSON or stream, through the official SDK (metadata asked for). */
export interface LoopAnswer {
  message: Message;
  /** The stream's events (empty for JSON). */
  events: MessageStreamEvent[];
  usage: GatewayUsage & { server_tool_use?: Record<string, number> };
  metadata: RoutingMetadata & { steps: ToolLoopStep[] };
}

/** Sends a loop request through the Anthropic SDK, as JSON or as a stream, and reads what a client would. */
export async function runLoop(gateway: TestGateway, body: Record<string, unknown>, stream: boolean): Promise<LoopAnswer> {
  const client = anthropicClient(gateway, WITH_METADATA);
  if (!stream) {
    const message = await client.messages.create(body as never);
    const raw = message as unknown as { usage: LoopAnswer['usage']; gateway_metadata: LoopAnswer['metadata'] };
    return { message, events: [], usage: raw.usage, metadata: raw.gateway_metadata };
  }
  const running = client.messages.stream(body as never);
  const events: MessageStreamEvent[] = [];
  for await (const event of running) events.push(event);
  const message = await running.finalMessage();
  const stop = events.at(-1) as unknown as { gateway_metadata: LoopAnswer['metadata'] };
  return { message, events, usage: finalStreamUsage(events), metadata: stop.gateway_metadata };
}
