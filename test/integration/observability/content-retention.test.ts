/**
 * Content retention over HTTP: a workspace that stores content keeps each prompt and completion until its
 * retention ends, then the periodic sweep deletes them while the rest of the record stays. Time is moved by
 * setting a stored record's expiry into the past, as a day passing would.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '#test/helpers/fake-upstreams/index.ts';
import { callApi } from '#test/helpers/management-api.ts';
import { ALPHA_FIRST, messageBody, postMessage } from '#test/integration/routing/routing-support.ts';
import { generationOf, startRecordsGateway, type RecordsGateway } from './observability-support.ts';

let setup: RecordsGateway;

beforeAll(async () => {
  setup = await startRecordsGateway({ env: { SWITCHBOARD_CONTENT_SWEEP_MS: '1000' } });
});
afterAll(async () => {
  await setup?.close();
});

describe('content retention', () => {
  it('deletes a stored prompt and completion once their retention has passed, keeping the record', async () => {
    await callApi(setup.gateway.baseUrl, 'PATCH', '/workspace/settings', { key: setup.gateway.management_key, body: { store_content: true, content_retention_days: 1 } });
    setup.alpha.enqueue(reply.fixture('anthropic-text'), reply.fixture('anthropic-text'));
    const expiring = (await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST))).headers.get('x-generation-id') ?? '';
    const kept = (await postMessage(setup.gateway, messageBody('test/primary', ALPHA_FIRST))).headers.get('x-generation-id') ?? '';
    expect(await generationOf(setup.gateway, expiring)).toHaveProperty('prompt');

    // A day later for the first record only.
    await setup.gateway.server.database.db.execute(sql`update generations set content_expires_at = now() - interval '1 minute' where id = ${expiring}`);
    const deadline = Date.now() + 10_000;
    let record = await generationOf(setup.gateway, expiring);
    while ('prompt' in record && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      record = await generationOf(setup.gateway, expiring);
    }
    expect(record).not.toHaveProperty('prompt');
    expect(record).not.toHaveProperty('completion');
    expect(record).toMatchObject({ id: expiring, status: 'success', usage: { input_tokens: 12 } });
    expect(await generationOf(setup.gateway, kept)).toHaveProperty('completion');
    expect(setup.gateway.logs.some((line) => line.includes('deleted stored prompts and completions past their retention'))).toBe(true);
  });
});
