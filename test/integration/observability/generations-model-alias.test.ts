/**
 * `GET /generations?model=<slug>` finds the records of requests that named the model by an alias (a bare
 * Anthropic id, dated or not, as Claude Code sends it) even when nothing served them: a failed request has
 * no serving model, only the name it asked for, and the spec filters by the requested model's slug.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { ALPHA_FIRST, messageBody, postMessage } from '#test/integration/routing/routing-support.ts';
import { startRecordsGateway, type RecordsGateway } from './observability-support.ts';

let setup: RecordsGateway;
const ids: Record<string, string> = {};

beforeAll(async () => {
  setup = await startRecordsGateway();
  // `up-primary-alpha` is test/primary's model id on Alpha, an Anthropic-format provider: an alias of the slug.
  const plan: [string, string, 'ok' | 'fail'][] = [
    ['served', 'test/primary', 'ok'],
    ['alias-failed', 'up-primary-alpha', 'fail'],
    ['dated-alias-failed', 'up-primary-alpha-20250929', 'fail'],
    ['other', 'test/other', 'ok'],
  ];
  for (const [name, model, result] of plan) {
    if (model === 'test/other') setup.beta.enqueue(reply.fixture('anthropic-text'));
    else if (result === 'ok') setup.alpha.enqueue(reply.fixture('anthropic-text'));
    else setup.alpha.enqueue(reply.error(400, { message: 'prompt is too long' }));
    const call = await postMessage(setup.gateway, messageBody(model, ALPHA_FIRST));
    expect(call.status, name).toBe(result === 'ok' ? 200 : 400);
    ids[name] = call.headers.get('x-generation-id') ?? '';
  }
  await setup.gateway.server.flushRecords();
});
afterAll(async () => {
  await setup?.close();
});

describe('GET /generations?model=', () => {
  it('matches a failed request that named the model by an alias, with totals to match', async () => {
    const response = await callApi(setup.gateway.baseUrl, 'GET', '/generations?model=test%2Fprimary', { key: setup.gateway.management_key });
    expect(response.status).toBe(200);
    const found = response.body.data.map((record: { id: string }) => record.id);
    expect(new Set(found)).toEqual(new Set([ids.served, ids['alias-failed'], ids['dated-alias-failed']]));
    expect(response.body.totals.requests).toBe(3);

    const failed = await callApi(setup.gateway.baseUrl, 'GET', '/generations?model=test%2Fprimary&status=error', { key: setup.gateway.management_key });
    expect(failed.body.data.map((record: { requested_model: string; model: string | null }) => [record.requested_model, record.model])).toEqual([
      ['up-primary-alpha-20250929', null],
      ['up-primary-alpha', null],
    ]);
  });

  it('still matches the name as it was written', async () => {
    const response = await callApi(setup.gateway.baseUrl, 'GET', '/generations?model=up-primary-alpha', { key: setup.gateway.management_key });
    expect(response.body.data.map((record: { id: string }) => record.id)).toEqual([ids['alias-failed']]);
  });
});
