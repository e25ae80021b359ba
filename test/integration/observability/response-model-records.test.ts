/**
 * Generation records carry the vendor's model beside the catalog slug: `response_model` on the record (what
 * the served attempt's answer named) and on each attempt that answered, over `GET /generations/{id}` and
 * `GET /generations`, in the webhook event (checked against the spec's `GenerationWebhookEvent` as its
 * receiver would) and in the Langfuse generation's attempts. The client is the Anthropic SDK; Alpha answers
 * 529 and Beta answers with the recorded Anthropic answer, which names `claude-sonnet-4-5-20250929` while the
 * catalog slug is `test/primary`. The `model` filter still reads the slug, not the vendor's model.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { checkComponentSchema } from '#test/helpers/spec-validator.ts';
import { ALPHA_FIRST } from '#test/integration/routing/routing-support.ts';
import { generationOf, startRecordsGateway, type RecordsGateway } from './observability-support.ts';
import { arrived, createDestination as createDestinationOn, ingestedEvents, INGESTION_PATH } from './destination-receivers.ts';

// What the recorded Anthropic answer names: a dated snapshot, not the catalog's slug.
const VENDOR_MODEL = 'claude-sonnet-4-5-20250929';
const FAILED_THEN_SERVED = [
  { provider: 'Alpha Cloud', model: 'test/primary', status: 'overloaded', http_status: 529 },
  { provider: 'Beta Cloud', model: 'test/primary', status: 'success', http_status: 200, response_model: VENDOR_MODEL },
];

let setup: RecordsGateway;
let client: Anthropic;
let hooks: CaptureServer;
let langfuse: CaptureServer;

const createDestination = (body: Record<string, unknown>) => createDestinationOn(setup.gateway, body);

/** Alpha overloaded, Beta answering; returns the generation id and the model the client saw. */
async function failoverCall(stream: boolean): Promise<{ id: string; model: string }> {
  setup.alpha.enqueue(reply.error(529));
  setup.beta.enqueue(reply.fixture('anthropic-text'));
  // `provider` is the gateway's own routing field, which the SDK passes through.
  const body = { model: 'test/primary', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Hello there' }], ...ALPHA_FIRST };
  if (!stream) {
    const { data, response } = await client.messages.create(body).withResponse();
    return { id: response.headers.get('x-generation-id') ?? '', model: data.model };
  }
  const { data, response } = await client.messages.create({ ...body, stream: true }).withResponse();
  let model = '';
  for await (const event of data) if (event.type === 'message_start') model = event.message.model;
  return { id: response.headers.get('x-generation-id') ?? '', model };
}

beforeAll(async () => {
  [hooks, langfuse] = await Promise.all([startCaptureServer(), startCaptureServer({ status: 207, body: { successes: [], errors: [] } })]);
  setup = await startRecordsGateway();
  client = new Anthropic({ baseURL: `${setup.gateway.origin}/api`, authToken: setup.gateway.api_key, apiKey: null, maxRetries: 0 });
  await createDestination({ name: 'hook', kind: 'webhook', endpoint: `${hooks.url}/hook`, signing_secret: 'whsec_0123456789abcdef0123' });
  await createDestination({ name: 'lf', kind: 'langfuse', endpoint: langfuse.url, public_key: 'pk-lf-test', secret_key: 'sk-lf-secret-9999' });
}, 60_000);
afterAll(async () => {
  await setup?.close();
  await Promise.all([hooks?.close(), langfuse?.close()]);
});

describe("the vendor's response model in generation records", () => {
  it.each([
    ['JSON', false],
    ['a stream', true],
  ])('%s: the record and its answered attempt carry it beside the slug, by id and in the list', async (_case, stream) => {
    const { id, model } = await failoverCall(stream);
    expect(model).toBe('test/primary');

    const record = await generationOf(setup.gateway, id);
    expect(record).toMatchObject({ requested_model: 'test/primary', model: 'test/primary', response_model: VENDOR_MODEL, provider: 'beta', attempts: FAILED_THEN_SERVED });
    // The attempt that failed never answered: it names no model of the vendor's.
    expect(record.attempts[0]).not.toHaveProperty('response_model');

    const page = await callApi(setup.gateway.baseUrl, 'GET', '/generations?model=test/primary&limit=100', { key: setup.gateway.management_key });
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    const listed = (page.body.data as { id: string }[]).find((entry) => entry.id === id);
    expect(listed).toMatchObject({ model: 'test/primary', response_model: VENDOR_MODEL, attempts: FAILED_THEN_SERVED });
    // The filter reads the catalog's slugs, as before: the vendor's model is not one.
    const byVendorModel = await callApi(setup.gateway.baseUrl, 'GET', `/generations?model=${VENDOR_MODEL}`, { key: setup.gateway.management_key });
    expect(byVendorModel.status).toBe(200);
    expect(byVendorModel.body.data).toEqual([]);
  });

  it('a request nothing answered records no response model', async () => {
    setup.alpha.enqueue(reply.error(400));
    const response = await client.messages.create({ model: 'test/primary', max_tokens: 64, messages: [{ role: 'user', content: 'Hello there' }], ...ALPHA_FIRST }).withResponse().catch((error: unknown) => error);
    expect(response).toBeInstanceOf(Anthropic.BadRequestError);
    const id = (response as InstanceType<typeof Anthropic.BadRequestError>).headers?.get('x-generation-id') ?? '';
    const record = await generationOf(setup.gateway, id);
    expect(record).toMatchObject({ status: 'error', response_model: null });
    expect(record.attempts[0]).not.toHaveProperty('response_model');
  });

  it('the webhook event and the Langfuse generation carry it, the webhook body as the spec says', async () => {
    const { id } = await failoverCall(false);
    await setup.gateway.server.flushRecords();

    const delivery = await arrived('webhook', () => hooks.requests.find((request) => JSON.parse(request.body.toString()).id === id));
    const event = JSON.parse(delivery.body.toString());
    expect(checkComponentSchema('GenerationWebhookEvent', event).errors).toEqual([]);
    expect(event.data).toMatchObject({ id, model: 'test/primary', response_model: VENDOR_MODEL, attempts: FAILED_THEN_SERVED });

    const created = await arrived('Langfuse generation', () => ingestedEvents(langfuse, INGESTION_PATH).find((entry) => entry.type === 'generation-create' && entry.body.id === id));
    expect(created.body).toMatchObject({ model: VENDOR_MODEL, metadata: { gateway_model: 'test/primary', attempts: FAILED_THEN_SERVED } });
  });
});
