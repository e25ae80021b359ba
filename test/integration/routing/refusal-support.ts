/**
 * The setup the refusal suites share: a fake Anthropic whose model refuses (`test/main` on Alpha, at $1/$2 per
 * million tokens) and a second endpoint whose model answers (`test/backup` on Beta, at $3/$4), behind one
 * gateway; the refusal a scripted step with Anthropic's `stop_details`, and a request naming the fallback.
 */
import { randomUUID } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import { anthropicStep, startFakeAnthropic, type FakeUpstream, type ReplyDelivery, type ScriptedStep } from '#test/helpers/fake-upstreams/index.ts';
import { useSuiteSetup } from '#test/helpers/suite-setup.ts';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';
import type { GenerationBody } from '#test/integration/observability/observability-support.ts';

/** The refusing model and the one named as its fallback. */
export const REFUSING_MODEL = 'test/main';
export const SERVING_MODEL = 'test/backup';

/** USD of `tokens` at `price` per million. */
export const micro = (tokens: number, price: number): number => (tokens * price) / 1_000_000;

/** What the default refusal reports: 40 in, 8 read from cache, 1 out. */
export const REFUSAL_USAGE = { input: 40, output: 1, cacheRead: 8 } as const;
/** Its cost on the refusing endpoint (cache reads at the input price). */
export const REFUSED_COST = micro(40, 1) + micro(8, 1) + micro(1, 2);

/** The two fakes and the gateway in front of them. */
export interface RefusalGateway {
  refusing: FakeUpstream;
  serving: FakeUpstream;
  gateway: TestGateway;
  /** Forgets what both fakes were sent and were told to answer. */
  clear(): void;
  close(): Promise<void>;
}

/** More of the catalog: provider and model entries (YAML, as `catalogYaml` takes them) for a suite's own upstreams. */
export interface RefusalCatalogExtras {
  providers?: readonly string[];
  models?: readonly string[];
}

/** Starts both fakes and a gateway whose catalog has the refusing model and its fallback (and `extras`). */
export async function startRefusalGateway(options: TestGatewayOptions = {}, extras: RefusalCatalogExtras = {}): Promise<RefusalGateway> {
  const [refusing, serving] = await Promise.all([startFakeAnthropic(), startFakeAnthropic()]);
  const gateway = await startTestGateway({
    ...options,
    catalogYaml: catalogYaml(
      [anthropicProviderYaml('alpha', refusing), anthropicProviderYaml('beta', serving), ...(extras.providers ?? [])],
      [
        modelYaml(REFUSING_MODEL, [{ provider: 'alpha', model: 'up-main-alpha', price: [1, 2] }]),
        modelYaml(SERVING_MODEL, [{ provider: 'beta', model: 'up-backup-beta', price: [3, 4] }]),
        ...(extras.models ?? []),
      ],
    ),
  });
  return {
    refusing,
    serving,
    gateway,
    clear() {
      refusing.clear();
      serving.clear();
    },
    async close() {
      await gateway.close();
      await Promise.all([refusing.close(), serving.close()]);
    },
  };
}

/**
 * Registers the suite's hooks: both fakes and the gateway started once before its tests, closed after them,
 * and cleared before each. The returned handle reads the running setup, so use it inside hooks and tests only.
 */
export function useRefusalGateway(options: TestGatewayOptions = {}, extras: RefusalCatalogExtras = {}): RefusalGateway {
  return useSuiteSetup({ start: () => startRefusalGateway(options, extras), stop: (setup) => setup.close(), reset: (setup) => setup.clear() });
}

/** The official SDK pointed at `gateway`, authenticated with `key` (a limited key's, to read its spending). */
export function keyClient(gateway: TestGateway, key: string): Anthropic {
  return new Anthropic({ baseURL: `${gateway.origin}/api`, authToken: key, apiKey: null, maxRetries: 0, timeout: 10_000 });
}

/** An answer read through the SDK, with the gateway's `usage.cost` and the generation id. */
export interface CostedAnswer {
  message: Anthropic.Beta.BetaMessage;
  cost: number | undefined;
  requestId: string;
}

/**
 * Sends `request` as JSON or as a stream and returns the answer, its `usage.cost` (a stream's from its closing
 * `message_delta`, which the SDK does not keep on the final message) and its generation id.
 */
export async function askWithCost(client: Anthropic, request: object, stream: boolean): Promise<CostedAnswer> {
  const params = request as unknown as Anthropic.Beta.MessageCreateParamsNonStreaming;
  if (!stream) {
    const { data, request_id } = await client.beta.messages.create(params).withResponse();
    return { message: data, cost: (data.usage as unknown as { cost?: number }).cost, requestId: request_id ?? '' };
  }
  const events = client.beta.messages.stream(params);
  let cost: number | undefined;
  events.on('streamEvent', (event) => {
    if (event.type === 'message_delta') cost = (event.usage as unknown as { cost?: number }).cost;
  });
  const message = await events.finalMessage();
  return { message, cost, requestId: events.request_id ?? '' };
}

/** What the serving model answers after a refusal: 60 in, 6 out. */
export const SERVING_USAGE = { input: 60, output: 6 } as const;
/** Its cost on the serving endpoint. */
export const SERVED_COST = micro(60, 3) + micro(6, 4);

/** The serving model's answer (JSON or stream, as asked) reporting SERVING_USAGE, delivered as given. */
export function servingStep(delivery: ReplyDelivery = {}) {
  return anthropicStep({ text: 'Port scanners probe hosts for open ports.', usage: SERVING_USAGE }, delivery);
}

/** A refusal (JSON or stream, as asked) with Anthropic's `stop_details`, reporting `usage`. */
export function refusalStep(usage: ScriptedStep['usage'] = REFUSAL_USAGE, delivery: ReplyDelivery = {}) {
  return anthropicStep({ text: 'I', stopReason: 'refusal', stopDetails: { type: 'refusal', category: 'cyber', explanation: 'Not this one.' }, usage }, delivery);
}

/** What a refusal before any output reports: 40 in, 8 read from cache, nothing out. */
export const EARLY_REFUSAL_USAGE = { input: 40, output: 0, cacheRead: 8 } as const;

/** A refusal before any output (no content block), in `category`, as Anthropic's classifier declines a request. */
export function earlyRefusalStep(category: string | null = 'cyber', usage: ScriptedStep['usage'] = EARLY_REFUSAL_USAGE, delivery: ReplyDelivery = {}) {
  return anthropicStep({ stopReason: 'refusal', stopDetails: { type: 'refusal', category, explanation: 'Not this one.' }, usage }, delivery);
}

/** The record's attempts as `model:status`, in order. */
export function attemptTrail(record: GenerationBody): string[] {
  return record.attempts.map((attempt: { model: string; status: string }) => `${attempt.model}:${attempt.status}`);
}

/**
 * A request to the refusing model naming the serving one in `fallbacks`, in a session of its own (no sticky pin
 * of an earlier test reorders its plan).
 */
export function fallbackRequest(extra: Record<string, unknown> = {}) {
  return {
    model: REFUSING_MODEL,
    max_tokens: 100,
    messages: [{ role: 'user' as const, content: 'Tell me about port scanners.' }],
    fallbacks: [{ model: SERVING_MODEL }],
    session_id: randomUUID(),
    ...extra,
  };
}
