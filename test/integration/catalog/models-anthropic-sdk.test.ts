/**
 * `GET /models` and `GET /models/{model_id}` driven by the Anthropic SDK with its default settings, as an
 * application listing or looking up models through the gateway writes it: `client.models.list()` with
 * Anthropic's paging parameters (`limit`, `after_id`, `before_id`) and its auto-pagination, and
 * `client.models.retrieve(id)`. Responses are validated against the spec by the test gateway. Errors come in
 * Anthropic's body, so the SDK raises its typed error with Anthropic's `type` and, for a bad parameter, its
 * `errorCode` and `details` object.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelList } from '#src/api-types.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

let gateway: TestGateway;
let client: Anthropic;
let catalogIds: string[];

beforeAll(async () => {
  gateway = await startTestGateway();
  client = new Anthropic({ baseURL: `${gateway.origin}/api`, authToken: gateway.api_key, apiKey: null, maxRetries: 0 });
  const response = await fetch(`${gateway.baseUrl}/models`, { headers: { authorization: `Bearer ${gateway.api_key}` } });
  catalogIds = ((await response.json()) as ModelList).data.map((model) => model.id);
});
afterAll(async () => {
  await gateway?.close();
});

/** The ids of every model the SDK's auto-pagination yields, with a guard against a page loop. */
async function iterateIds(params: Anthropic.ModelListParams): Promise<string[]> {
  const ids: string[] = [];
  for await (const model of client.models.list(params)) {
    ids.push(model.id);
    if (ids.length > catalogIds.length * 2) break;
  }
  return ids;
}

describe('client.models.list()', () => {
  it('without parameters gets the whole catalog in one page, in Anthropic’s envelope and model fields', async () => {
    const page = await client.models.list();
    expect(catalogIds.length).toBeGreaterThan(5);
    expect(page.data.map((model) => model.id)).toEqual(catalogIds);
    expect(page.has_more).toBe(false);
    expect(page.first_id).toBe(catalogIds[0]);
    expect(page.last_id).toBe(catalogIds.at(-1));
    const sonnet = page.data.find((model) => model.id === 'anthropic/claude-sonnet-4.5');
    expect(sonnet).toMatchObject({ type: 'model', display_name: 'Claude Sonnet 4.5' });
    // The SDK's apiKey option, which this SDK version (1.14) sends as Authorization: Bearer; the x-api-key
    // header itself is driven in models-spec-fidelity.test.ts.
    const byApiKey = new Anthropic({ baseURL: `${gateway.origin}/api`, apiKey: gateway.api_key, maxRetries: 0 });
    expect((await byApiKey.models.list()).data.map((model) => model.id)).toEqual(catalogIds);
  });

  it('gives every model the ModelInfo fields the SDK types, so code written against Anthropic reads them safely', async () => {
    // As an application reads Anthropic's ModelInfo: `capabilities` is the capability matrix or null, never
    // another object (the gateway's own booleans, which made `.image_input.supported` throw a TypeError).
    const imageModels: string[] = [];
    for await (const model of client.models.list()) {
      expect(model.capabilities, model.id).toBeNull();
      if (model.capabilities?.image_input.supported) imageModels.push(model.id);
      // The lifecycle fields the SDK types, as of the test clock (xAI's and OpenAI's retirements are driven in
      // xai-retired-models.test.ts and openai-retirements.test.ts).
      expect(['active', 'deprecated', 'retired'], model.id).toContain(model.lifecycle);
      expect(model.lifecycle === 'active' ? [model.deprecated_at, model.retires_at] : [typeof model.retires_at], model.id).toEqual(
        model.lifecycle === 'active' ? [null, null] : ['string'],
      );
    }
    expect(imageModels).toEqual([]);
    const byId = new Map((await client.models.list()).data.map((model) => [model.id, model]));
    expect(byId.get('anthropic/claude-sonnet-4.5')?.line).toBe('sonnet');
    expect(byId.get('anthropic/claude-opus-4.6')?.line).toBe('opus');
    expect(byId.get('anthropic/claude-haiku-4.5')?.line).toBe('haiku');
    // Anthropic's `ModelLine` has `fable` (and `mythos`): the Fable models name it, as Anthropic's API does.
    const fableLines = [...byId.values()].filter((model) => model.id.startsWith('anthropic/claude-fable-')).map((model) => [model.id, model.line]);
    expect(fableLines).toEqual([
      ['anthropic/claude-fable-5.2', 'fable'],
      ['anthropic/claude-fable-5.1', 'fable'],
      ['anthropic/claude-fable-5', 'fable'],
    ]);
    expect(byId.get('openai/gpt-5')?.line).toBeNull();
    // What the gateway can send to a model stays in its own field.
    expect(byId.get('anthropic/claude-sonnet-4.5')).toMatchObject({ features: { tools: true, vision: true, pdf: true, thinking: true } });
    expect((await client.models.retrieve('anthropic/claude-haiku-4.5')).line).toBe('haiku');
  });

  it('with a limit pages through every model once, in order, by after_id', async () => {
    const first = await client.models.list({ limit: 5 });
    expect(first.data.map((model) => model.id)).toEqual(catalogIds.slice(0, 5));
    expect(first.has_more).toBe(true);
    expect(first.last_id).toBe(catalogIds[4]);
    expect(await iterateIds({ limit: 5 })).toEqual(catalogIds);
  });

  it('with after_id starts after that model; with before_id ends before it, and pages backwards', async () => {
    const after = await client.models.list({ after_id: catalogIds[2], limit: 2 });
    expect(after.data.map((model) => model.id)).toEqual(catalogIds.slice(3, 5));
    const last = catalogIds.at(-1) as string;
    const before = await client.models.list({ before_id: last, limit: 2 });
    expect(before.data.map((model) => model.id)).toEqual(catalogIds.slice(-3, -1));
    expect(before.has_more).toBe(true);
    const backwards = await iterateIds({ before_id: last, limit: 4 });
    expect(backwards.toSorted()).toEqual(catalogIds.slice(0, -1).toSorted());
    const end = await client.models.list({ after_id: last });
    expect({ data: end.data, has_more: end.has_more, first_id: end.first_id, last_id: end.last_id }).toEqual({ data: [], has_more: false, first_id: null, last_id: null });
  });

  it.each([
    ['an after_id the catalog does not list', { after_id: 'openai/gpt-9' }, 'after_id', 'after_id names no model of the catalog: openai/gpt-9'],
    ['a before_id the catalog does not list', { before_id: 'nobody/nothing' }, 'before_id', 'before_id names no model of the catalog: nobody/nothing'],
    ['both after_id and before_id', { after_id: 'openai/gpt-5', before_id: 'anthropic/claude-sonnet-4.5' }, 'after_id', 'give after_id or before_id, not both'],
  ])('answers 400 for %s', async (_name, params, parameter, message) => {
    const error = await client.models.list(params).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const badRequest = error as InstanceType<typeof Anthropic.BadRequestError>;
    expect({ type: badRequest.type, errorCode: badRequest.errorCode, details: badRequest.details }).toEqual({
      type: 'invalid_request_error',
      errorCode: 'invalid_request_parameters',
      details: { error_code: 'invalid_request_parameters', parameters: [{ path: `/query/${parameter}`, message }] },
    });
    expect(badRequest.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', code: 400, message: `Invalid request parameters: ${message}` } });
  });

  it('answers 400 for a limit outside 1 to 1000', async () => {
    await expect(client.models.list({ limit: 1001 })).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(client.models.list({ limit: 0 })).rejects.toBeInstanceOf(Anthropic.BadRequestError);
  });
});

describe('client.models.retrieve(id)', () => {
  it('gets one model of the catalog, as GET /models lists it', async () => {
    const model = await client.models.retrieve('anthropic/claude-sonnet-4.5');
    const listed = (await client.models.list()).data.find((entry) => entry.id === 'anthropic/claude-sonnet-4.5');
    expect(model).toEqual(listed);
    expect(model).toMatchObject({ id: 'anthropic/claude-sonnet-4.5', type: 'model', display_name: 'Claude Sonnet 4.5' });
  });

  it.each(['claude-sonnet-4-5', 'claude-sonnet-4-5-20250929'])('resolves the bare Anthropic id %s to the catalog model, as messages do', async (alias) => {
    const model = await client.models.retrieve(alias);
    expect(model).toMatchObject({ id: 'anthropic/claude-sonnet-4.5', type: 'model', display_name: 'Claude Sonnet 4.5' });
  });

  it('answers 404 naming a model the catalog does not list', async () => {
    const error = await client.models.retrieve('anthropic/claude-sonnet-9').then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    const notFound = error as InstanceType<typeof Anthropic.NotFoundError>;
    expect(notFound.type).toBe('not_found_error');
    expect(notFound.error).toEqual({
      type: 'error',
      error: { type: 'not_found_error', code: 404, message: 'The catalog has no model anthropic/claude-sonnet-9 (GET /models lists them)' },
      request_id: notFound.requestID,
    });
  });
});

describe('a key the gateway does not know', () => {
  it('makes list() and retrieve() raise AuthenticationError of type authentication_error', async () => {
    const stranger = new Anthropic({ baseURL: `${gateway.origin}/api`, apiKey: 'sb-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', maxRetries: 0 });
    for (const call of [() => stranger.models.list(), () => stranger.models.retrieve('anthropic/claude-sonnet-4.5')]) {
      const error = await call().then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
      const refused = error as InstanceType<typeof Anthropic.AuthenticationError>;
      expect({ type: refused.type, body: refused.error }).toEqual({
        type: 'authentication_error',
        body: { type: 'error', error: { type: 'authentication_error', code: 401, message: 'Invalid API key' }, request_id: refused.requestID },
      });
    }
  });
});
