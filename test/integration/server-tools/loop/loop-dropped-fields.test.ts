/**
 * A server-side tool loop on a translated vendor (OpenAI Chat) whose request has a field the vendor has no
 * counterpart for: each step's attempt lists it in `dropped_fields` (`gateway_metadata.attempts` and the
 * generation record), and the loop's answer, which carries none of its upstreams' headers, has no
 * `X-Switchboard-Dropped-Fields`.
 */
import { expect, it } from 'vitest';
import { openAiChatStep } from '#test/helpers/fake-upstreams/index.ts';
import { generationOf } from '#test/integration/observability/observability-support.ts';
import { metadataOf, postMessage, WITH_METADATA } from '#test/integration/routing/routing-support.ts';
import { loopBody, useLoopGateway } from './loop-support.ts';

const setup = useLoopGateway();

it('each step lists the dropped field; the loop answer has no header', async () => {
  setup.openai.enqueue(
    openAiChatStep({ calls: [{ name: 'datetime', input: {} }], usage: { input: 50, output: 5 } }),
    openAiChatStep({ text: 'It is noon.', usage: { input: 80, output: 5 } }),
  );
  const call = await postMessage(setup.gateway, loopBody('test/gpt', [{ type: 'gateway:datetime' }], { diagnostics: { previous_message_id: 'msg_01Earlier' } }), WITH_METADATA);

  expect(call.status, JSON.stringify(call.body)).toBe(200);
  expect(call.headers.has('x-switchboard-dropped-fields')).toBe(false);
  const listed = [expect.objectContaining({ status: 'success', dropped_fields: ['diagnostics'] }), expect.objectContaining({ status: 'success', dropped_fields: ['diagnostics'] })];
  expect(metadataOf(call).attempts).toEqual(listed);
  const record = await generationOf(setup.gateway, call.headers.get('x-generation-id') ?? '');
  expect(record.attempts).toEqual(listed);
});
