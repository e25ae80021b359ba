/**
 * A server-side tool loop's steps held to their endpoints' output limits, observably. Each step is a routed
 * attempt, and the gateway lowers a `max_tokens` above the endpoint's `max_output_tokens` to it (as the fake
 * Anthropic, like Anthropic, refuses more). A plain request says so in `X-Switchboard-Max-Tokens`; a loop's
 * later step, which may fall over to an endpoint with a lower limit, had no trace of it anywhere. Now every
 * attempt that was sent a lowered value says it in `max_tokens_sent` (`gateway_metadata.attempts` and the
 * generation record), its span's `gen_ai.request.max_tokens` is the value sent, and the loop's answer carries
 * the header when its first step was lowered. The client is the Anthropic SDK. Alpha serves `test/limited`
 * without a limit, Beta with one of 200 tokens; the request asks 300.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { anthropicStep, reply, startFakeAnthropic, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway } from '#test/helpers/start-gateway.ts';
import { useSuiteSetup } from '#test/helpers/suite-setup.ts';
import { attemptSpans, generationOf, startOtlpCollector } from '#test/integration/observability/observability-support.ts';
import { anthropicClient, anthropicProviderYaml, catalogYaml, modelYaml, resetFakes, WITH_METADATA } from '#test/integration/routing/routing-support.ts';

const HEADER = 'x-switchboard-max-tokens';
const ASKED = 300;
const LIMIT = 200;

const setup = useSuiteSetup({
  async start() {
    const [alpha, beta] = await Promise.all([startFakeAnthropic(), startFakeAnthropic({ outputLimits: { 'up-limited-beta': LIMIT } })]);
    const models = [
      modelYaml('test/limited', [
        { provider: 'alpha', model: 'up-limited-alpha', price: [1, 2] },
        { provider: 'beta', model: 'up-limited-beta', price: [1, 2], extra: `max_output_tokens: ${LIMIT}` },
      ]),
    ];
    const providers = [anthropicProviderYaml('alpha', alpha), anthropicProviderYaml('beta', beta)];
    const gateway = await startTestGateway({ catalogYaml: catalogYaml(providers, models), env: { SWITCHBOARD_RECORD_FLUSH_MS: '50' } });
    return { alpha, beta, gateway, client: anthropicClient(gateway, WITH_METADATA), collector: await startOtlpCollector(gateway) };
  },
  async stop({ alpha, beta, gateway, collector }) {
    await gateway.close();
    await Promise.all([alpha.close(), beta.close(), collector.close()]);
  },
  reset: ({ alpha, beta }) => resetFakes(alpha, beta),
});

type Attempts = Array<Record<string, unknown>>;
type Metadata = { attempts: Attempts };

/** A two-step loop (a `gateway:datetime` call, then the answer) asking `ASKED` tokens, tried on `order`. */
function loopRequest(order: string[]) {
  return {
    model: 'test/limited',
    max_tokens: ASKED,
    messages: [{ role: 'user' as const, content: 'What time is it in Paris?' }],
    tools: [{ type: 'gateway:datetime' }],
    provider: { order },
  } as unknown as Anthropic.MessageCreateParamsNonStreaming;
}

const CALL = () => anthropicStep({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' } }], usage: { input: 20, output: 5 } });
const ANSWER = () => anthropicStep({ text: 'It is noon in Paris.', usage: { input: 30, output: 6 } });
const sentOf = (upstream: FakeUpstream) => upstream.requests.map((request) => (request.body as { max_tokens?: number }).max_tokens);

/**
 * Runs the request as JSON or as a stream: the answer's headers, its generation id and (JSON) its metadata's
 * attempts; a stream's metadata rides an event the SDK's final message does not keep, so its record is read.
 */
async function ask(request: Anthropic.MessageCreateParamsNonStreaming, stream: boolean): Promise<{ headers: Headers; attempts: Attempts | undefined; id: string }> {
  if (stream) {
    const { data, response } = await setup.client.messages.stream(request).withResponse();
    await data.finalMessage();
    return { headers: response.headers, attempts: undefined, id: response.headers.get('x-generation-id') ?? '' };
  }
  const { data, response } = await setup.client.messages.create(request).withResponse();
  return { headers: response.headers, attempts: (data as unknown as { gateway_metadata: Metadata }).gateway_metadata.attempts, id: response.headers.get('x-generation-id') ?? '' };
}

// The providers' display names.
const ALPHA = 'Alpha Cloud';
const BETA = 'Beta Cloud';

describe.each([false, true])('a tool loop (stream: %s)', (stream) => {
  it('a later step that falls over to a lower limit says the value it was sent, in its attempt and its span', async () => {
    setup.alpha.enqueue(CALL(), reply.error(529));
    setup.beta.enqueue(ANSWER());
    const { headers, attempts, id } = await ask(loopRequest(['alpha', 'beta']), stream);

    expect(sentOf(setup.alpha)).toEqual([ASKED, ASKED]);
    expect(sentOf(setup.beta)).toEqual([LIMIT]);
    // The first step went as asked: the header, sent with its first event, has nothing to say.
    expect(headers.get(HEADER)).toBeNull();
    if (attempts) expect(attempts.map(({ provider, status, max_tokens_sent }) => [provider, status, max_tokens_sent])).toEqual([[ALPHA, 'success', undefined], [ALPHA, 'overloaded', undefined], [BETA, 'success', LIMIT]]);

    const record = await generationOf(setup.gateway, id);
    expect(record.attempts.map(({ provider, status, max_tokens_sent }: Record<string, unknown>) => [provider, status, max_tokens_sent])).toEqual([
      [ALPHA, 'success', undefined],
      [ALPHA, 'overloaded', undefined],
      [BETA, 'success', LIMIT],
    ]);
    const spans = await attemptSpans(setup.gateway, setup.collector, id, 3);
    expect(spans.map((span) => span.attributes['gen_ai.request.max_tokens'])).toEqual([ASKED, ASKED, LIMIT]);
  });

  it('a loop whose first step was lowered names the value in the header, and each step\'s attempt lists it', async () => {
    setup.beta.enqueue(CALL(), ANSWER());
    const { headers, attempts, id } = await ask(loopRequest(['beta', 'alpha']), stream);

    expect(sentOf(setup.beta)).toEqual([LIMIT, LIMIT]);
    expect(headers.get(HEADER)).toBe(String(LIMIT));
    if (attempts) expect(attempts.map((attempt) => attempt.max_tokens_sent)).toEqual([LIMIT, LIMIT]);
    const record = await generationOf(setup.gateway, id);
    expect(record.attempts.map((attempt: Record<string, unknown>) => attempt.max_tokens_sent)).toEqual([LIMIT, LIMIT]);
  });
});
