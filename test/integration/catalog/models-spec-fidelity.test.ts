/**
 * `GET /models` and `GET /models/{model_id}` held to the spec and to Anthropic's ModelInfo, over HTTP. The
 * whole list is served as a string built at start-up, which the test gateway's response validation never
 * sees, so each body is checked here against the bundled spec independently. The Anthropic SDK reads the
 * ModelInfo fields strict clients require (`created_at`, `max_input_tokens`, `max_tokens`); a slug's `/` may
 * be written as is; and the key may come in `x-api-key`, as the SDK sends it by default.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Model, ModelList } from '#src/api-types.ts';
import { checkResponse } from '#test/helpers/spec-validator.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway?.close();
});

async function get(path: string, headers: Record<string, string> = { authorization: `Bearer ${gateway.api_key}` }) {
  const response = await fetch(`${gateway.baseUrl}${path}`, { headers });
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: (await response.json()) as unknown };
}

describe('the bodies match the spec', () => {
  it('GET /models, the whole catalog as served from the pre-built string, and one page of it', async () => {
    for (const path of ['/models', '/models?limit=3']) {
      const { status, contentType, body } = await get(path);
      expect(status).toBe(200);
      expect(checkResponse({ path: '/models', method: 'GET', status, contentType, body })).toEqual({ valid: true, errors: [] });
    }
  });

  it('GET /models/{model_id}, by slug and by bare Anthropic id', async () => {
    for (const path of ['/models/anthropic%2Fclaude-sonnet-4.5', '/models/claude-haiku-4-5']) {
      const { status, contentType, body } = await get(path);
      expect(status).toBe(200);
      expect(checkResponse({ path: '/models/{model_id}', method: 'GET', status, contentType, body })).toEqual({ valid: true, errors: [] });
    }
  });

  it.each([
    ['/models', '/models?after_id=openai%2Fgpt-9', 400, 'invalid_request_error'],
    ['/models', '/models', 401, 'authentication_error'],
    ['/models/{model_id}', '/models/anthropic%2Fclaude-sonnet-9', 404, 'not_found_error'],
    ['/models/{model_id}', '/models/anthropic%2Fclaude-sonnet-4.5', 401, 'authentication_error'],
  ] as const)('GET %s (%s) answers %i in Anthropic’s error body, type %s', async (specPath, path, expected, type) => {
    const headers = expected === 401 ? { 'x-api-key': 'sb-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } : undefined;
    const { status, contentType, body } = await get(path, headers);
    expect(status).toBe(expected);
    expect(body).toMatchObject({ type: 'error', error: { type, code: expected } });
    expect(checkResponse({ path: specPath, method: 'GET', status, contentType, body })).toEqual({ valid: true, errors: [] });
  });
});

describe("Anthropic's ModelInfo fields", () => {
  it('every model has created_at (the epoch: the catalog records no release dates), max_input_tokens and max_tokens', async () => {
    const { body } = await get('/models');
    for (const model of (body as ModelList).data) {
      // The endpoints still serving the model decide (all of them once every one has retired): Groq's retired
      // Llama 3.3 70B endpoint was the only one giving an output limit.
      const serving = model.endpoints.filter((endpoint) => endpoint.lifecycle !== 'retired');
      const deciding = serving.length > 0 ? serving : model.endpoints;
      const outputLimits = deciding.flatMap((endpoint) => (endpoint.max_output_tokens === null ? [] : [endpoint.max_output_tokens]));
      expect(model).toMatchObject({
        created_at: '1970-01-01T00:00:00Z',
        max_input_tokens: model.context_length,
        max_tokens: outputLimits.length === 0 ? null : Math.max(...outputLimits),
      });
    }
    const sonnet = (body as ModelList).data.find((model) => model.id === 'anthropic/claude-sonnet-4.5') as Model;
    expect({ max_input_tokens: sonnet.max_input_tokens, max_tokens: sonnet.max_tokens }).toEqual({ max_input_tokens: 200_000, max_tokens: 64_000 });
  });

  it('the SDK reads created_at as the RFC 3339 string its type says, from list() and retrieve()', async () => {
    const client = new Anthropic({ baseURL: `${gateway.origin}/api`, apiKey: gateway.api_key, maxRetries: 0 });
    const listed = (await client.models.list()).data.find((model) => model.id === 'anthropic/claude-sonnet-4.5');
    const retrieved = await client.models.retrieve('anthropic/claude-sonnet-4.5');
    for (const model of [listed, retrieved]) {
      const createdAt: string | undefined = model?.created_at;
      expect(typeof createdAt).toBe('string');
      expect(new Date(createdAt as string).toISOString()).toBe('1970-01-01T00:00:00.000Z');
      expect({ max_input_tokens: model?.max_input_tokens, max_tokens: model?.max_tokens }).toEqual({ max_input_tokens: 200_000, max_tokens: 64_000 });
    }
  });
});

describe('GET /models/{model_id} with the slug’s slash written as is', () => {
  it('answers the model, as the percent-encoded slug does', async () => {
    const plain = await get('/models/anthropic/claude-sonnet-4.5');
    const encoded = await get('/models/anthropic%2Fclaude-sonnet-4.5');
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual(encoded.body);
    expect(checkResponse({ path: '/models/{model_id}', method: 'GET', ...plain })).toEqual({ valid: true, errors: [] });
  });

  it('answers 404 naming the model for a slug the catalog does not list', async () => {
    const { status, body } = await get('/models/anthropic/claude-sonnet-9');
    expect(status).toBe(404);
    expect(body).toEqual({ type: 'error', error: { type: 'not_found_error', code: 404, message: 'The catalog has no model anthropic/claude-sonnet-9 (GET /models lists them)' }, request_id: expect.stringMatching(/^gen_/) });
  });

  it('leaves paths deeper than a slug unknown', async () => {
    const { status } = await get('/models/anthropic/claude-sonnet-4.5/extra');
    expect(status).toBe(404);
  });
});

describe('which keys the models operations take', () => {
  it.each(['inference', 'management'] as const)('take a key of kind %s in x-api-key (as Anthropic’s API and its Python SDK) or as Bearer', async (kind) => {
    const key = kind === 'inference' ? gateway.api_key : gateway.management_key;
    for (const headers of [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }] as Record<string, string>[]) {
      expect((await get('/models?limit=1', headers)).status).toBe(200);
      expect((await get('/models/anthropic%2Fclaude-sonnet-4.5', headers)).status).toBe(200);
    }
  });

  it('refuse an unknown key in x-api-key with a 401', async () => {
    const { status } = await get('/models', { 'x-api-key': 'sb-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    expect(status).toBe(401);
  });
});
