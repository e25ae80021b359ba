/**
 * Shared pieces of the over-HTTP routing suites: catalog YAML for test providers that speak Anthropic's wire
 * format (each pointed at its own fake upstream), a plain-fetch `POST /messages` that returns what a user
 * would look at, BYOK credentials created through the management API, and the routing metadata's shape.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { FakeUpstream, RecordedRequest } from '#test/helpers/fake-upstreams/index.ts';
import { reply, startFakeAnthropic } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { readSseEvents } from '#src/providers/sse-reader.ts';
import type { RawSseEvent } from '#src/providers/provider-adapter.ts';

/** What the helpers need of a running gateway (a test gateway or one instance of a pair). */
export type GatewayHandle = Pick<TestGateway, 'origin' | 'baseUrl' | 'api_key' | 'management_key'>;

/** Shared gateway keys of the test providers; a request carrying one of these was paid by the gateway. */
export const SHARED_KEYS = {
  alpha: 'sk-alpha-shared-key-0001',
  beta: 'sk-beta-shared-key-0001',
  gamma: 'sk-gamma-shared-key-0001',
} as const;

/** A test provider speaking Anthropic's Messages API at `upstream`, holding a shared key. */
export function anthropicProviderYaml(slug: keyof typeof SHARED_KEYS, upstream: FakeUpstream, extra = ''): string {
  const display = `${slug[0]?.toUpperCase()}${slug.slice(1)} Cloud`;
  return `  ${slug}: { family: anthropic, display_name: "${display}", base_url: "${upstream.url}", api_key: "${SHARED_KEYS[slug]}"${extra ? `, ${extra}` : ''} }`;
}

/** One endpoint line of a model's `endpoints:` list. */
export interface EndpointSpec {
  provider: string;
  model: string;
  /** USD per million tokens, input and output. */
  price: [number, number];
  extra?: string;
}

/** A test model with every capability, served by the given endpoints. */
export function modelYaml(slug: string, endpoints: readonly EndpointSpec[]): string {
  return [
    `  ${slug}:`,
    `    name: ${slug}`,
    '    context_length: 200000',
    '    capabilities: { tools: true, vision: true, pdf: true, thinking: true, caching: true, structured_output: true }',
    '    endpoints:',
    ...endpoints.map(
      (endpoint) =>
        `      - { provider: ${endpoint.provider}, model: ${endpoint.model}, pricing: { input: ${endpoint.price[0]}, output: ${endpoint.price[1]} }${endpoint.extra ? `, ${endpoint.extra}` : ''} }`,
    ),
  ].join('\n');
}

/**
 * A whole catalog file. The local `ollama` preset needs no key, so it would count as reachable shared
 * capacity (on 127.0.0.1:11434, where nothing of ours listens): it is disabled so that nothing but the fakes
 * can be chosen.
 */
export function catalogYaml(providers: readonly string[], models: readonly string[]): string {
  return ['providers:', '  ollama: { enabled: false }', ...providers, 'models:', ...models, ''].join('\n');
}

/** The smallest valid message request for `model`. */
export function messageBody(model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model, max_tokens: 64, messages: [{ role: 'user', content: 'Hello there' }], ...extra };
}

/** What a user sees of one `/messages` call. */
export interface MessageCall {
  status: number;
  headers: Headers;
  // The gateway's JSON answer: a message or an Anthropic-shaped error.
  body: Record<string, unknown>;
}

/** Posts to `/messages` with the inference key and returns status, headers and the parsed JSON body. */
export async function postMessage(gateway: GatewayHandle, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<MessageCall> {
  const response = await fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`expected JSON from /messages, got ${response.status}: ${text.slice(0, 500)}`);
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** What a user sees of one streamed `/messages` call: status, headers and every event, read to the end. */
export interface StreamCall {
  status: number;
  headers: Headers;
  events: RawSseEvent[];
}

/** Posts a streaming request (`stream: true` added) and reads the event stream to its end with an SSE parser. */
export async function streamMessage(gateway: GatewayHandle, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<StreamCall> {
  const response = await fetch(`${gateway.baseUrl}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const events: RawSseEvent[] = [];
  if (response.body) for await (const event of readSseEvents(response.body)) events.push(event);
  return { status: response.status, headers: response.headers, events };
}

/** The parsed payload of the first event named `name`; fails the test when there is none. */
export function eventPayload(call: StreamCall, name: string): Record<string, unknown> {
  const event = call.events.find((candidate) => candidate.event === name);
  expect(event, `no ${name} event among ${call.events.map((candidate) => candidate.event).join(', ')}`).toBeDefined();
  return JSON.parse(event?.data ?? '{}') as Record<string, unknown>;
}

/** The routing metadata as the interface defines it, plus the attempts list. */
export interface RoutingMetadata {
  attempt: number;
  endpoints: { available: { model: string; provider: string; selected: boolean }[]; total: number };
  generation_time: number;
  is_byok: boolean;
  region: string;
  requested: string;
  strategy: string;
  summary: string;
  attempts: { provider: string; model: string; status: string; http_status: number | null; is_byok: boolean; duration_ms: number; response_model?: string }[];
}

/** `gateway_metadata` of a JSON answer; fails the test when it is missing. */
export function metadataOf(call: MessageCall): RoutingMetadata {
  const metadata = call.body.gateway_metadata as RoutingMetadata | undefined;
  expect(metadata, JSON.stringify(call.body)).toBeDefined();
  return metadata as RoutingMetadata;
}

/** The `error.message` of an Anthropic-shaped error answer. */
export function errorMessage(call: MessageCall): string {
  const error = call.body.error as { message?: unknown } | undefined;
  expect(call.body.type, JSON.stringify(call.body)).toBe('error');
  return String(error?.message);
}

/** Asks for routing metadata. */
export const WITH_METADATA = { 'x-gateway-metadata': 'enabled' } as const;

/** Creates a BYOK credential with the management key; returns its id. */
export async function createCredential(gateway: GatewayHandle, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${gateway.baseUrl}/byok`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.management_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `routing ${String(body.provider)}`, ...body }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return (JSON.parse(text) as { data: { id: string } }).data.id;
}

/** Changes a BYOK credential with the management key (`PATCH /byok/{id}`), expecting 200. */
export async function patchCredential(gateway: GatewayHandle, id: string, body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${gateway.baseUrl}/byok/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${gateway.management_key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.text()).toBe(200);
}

/** Deletes a BYOK credential with the management key. */
export async function deleteCredential(gateway: GatewayHandle, id: string): Promise<void> {
  const response = await fetch(`${gateway.baseUrl}/byok/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${gateway.management_key}` } });
  expect(response.status, await response.text()).toBeLessThan(300);
}

/** The key an Anthropic-format upstream received (`x-api-key`). */
export function apiKeyOf(request: RecordedRequest): unknown {
  return request.headers['x-api-key'];
}

/** The `model` an upstream was asked for. */
export function upstreamModelOf(request: RecordedRequest): unknown {
  return (request.body as { model?: unknown } | undefined)?.model;
}

/** The SDK's error that `promise` rejects with; fails the test when it resolves or rejects with anything else. */
export async function rejection(promise: Promise<unknown>): Promise<InstanceType<typeof Anthropic.APIError>> {
  const caught = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(caught).toBeInstanceOf(Anthropic.APIError);
  return caught as InstanceType<typeof Anthropic.APIError>;
}

/** The official SDK pointed at the gateway, as a user configures it. */
export function anthropicClient(gateway: GatewayHandle, headers: Record<string, string> = {}): Anthropic {
  return new Anthropic({ baseURL: `${gateway.origin}/api`, authToken: gateway.api_key, apiKey: null, maxRetries: 0, timeout: 10_000, defaultHeaders: headers });
}

/** Forgets what the fakes recorded and their unused replies. */
export function resetFakes(...upstreams: FakeUpstream[]): void {
  for (const upstream of upstreams) upstream.clear();
}

/** Puts Alpha before Beta, for tests that need to know which provider is tried first. */
export const ALPHA_FIRST = { provider: { order: ['alpha', 'beta'] } };

/** A gateway whose one model, `test/primary`, is served at one price by two providers, Alpha and Beta. */
export interface AlphaBetaGateway {
  alpha: FakeUpstream;
  beta: FakeUpstream;
  gateway: TestGateway;
  close(): Promise<void>;
}

/**
 * Starts the Alpha/Beta gateway before the file's tests and stops it after them, forgetting what the fakes
 * recorded before each test. Its fields are readable once the file's `beforeAll` has run.
 */
export function useAlphaBetaGateway(): Readonly<Omit<AlphaBetaGateway, 'close'>> {
  let started: AlphaBetaGateway | undefined;
  beforeAll(async () => {
    started = await startAlphaBetaGateway();
  });
  afterAll(() => started?.close());
  beforeEach(() => resetFakes(running().alpha, running().beta));
  const running = (): AlphaBetaGateway => {
    if (!started) throw new Error('the Alpha/Beta gateway is read before its beforeAll started it');
    return started;
  };
  return {
    get alpha() {
      return running().alpha;
    },
    get beta() {
      return running().beta;
    },
    get gateway() {
      return running().gateway;
    },
  };
}

/** Starts the two fake upstreams and the gateway routing `test/primary` to both. */
export async function startAlphaBetaGateway(): Promise<AlphaBetaGateway> {
  const [alpha, beta] = await Promise.all([startFakeAnthropic(), startFakeAnthropic()]);
  const gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [anthropicProviderYaml('alpha', alpha), anthropicProviderYaml('beta', beta)],
      [
        modelYaml('test/primary', [
          { provider: 'alpha', model: 'up-primary-alpha', price: [1, 2] },
          { provider: 'beta', model: 'up-primary-beta', price: [1, 2] },
        ]),
      ],
    ),
  });
  return {
    alpha,
    beta,
    gateway,
    async close() {
      await gateway.close();
      await Promise.all([alpha.close(), beta.close()]);
    },
  };
}

/**
 * The circuit-breaker suites' two endpoints: Alpha, cheap, answers what a test queues; Beta, dear, answers a
 * text whenever nothing is queued. The price puts Alpha first, so a request reaches Beta only after Alpha
 * failed or while Alpha's circuit is open.
 */
export async function startBreakerUpstreams(): Promise<{ alpha: FakeUpstream; beta: FakeUpstream }> {
  const [alpha, beta] = await Promise.all([startFakeAnthropic(), startFakeAnthropic({ whenEmpty: reply.fixture('anthropic-text') })]);
  return { alpha, beta };
}

/** A catalog where each of `models` is served by Alpha (cheap) and Beta (dear): a circuit per model and provider. */
export function breakerCatalogYaml(alpha: FakeUpstream, beta: FakeUpstream, models: readonly string[]): string {
  return catalogYaml(
    [anthropicProviderYaml('alpha', alpha), anthropicProviderYaml('beta', beta)],
    models.map((model) =>
      modelYaml(model, [
        { provider: 'alpha', model: 'up-breaker-alpha', price: [0.001, 0.001] },
        { provider: 'beta', model: 'up-breaker-beta', price: [50, 50] },
      ]),
    ),
  );
}
