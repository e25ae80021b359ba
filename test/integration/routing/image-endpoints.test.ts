/**
 * Images and PDFs of a user message reach only endpoints that read them (`features.vision`, `features.pdf`):
 * a text-only endpoint (Groq's qwen3-32b here) is skipped like one whose vendor cannot express the request, so a
 * model with a vision endpoint as well is served there, and a model with none answers a 400 naming the block and
 * the model without calling any upstream. `provider.require_parameters` keeps leaving such endpoints out.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { WITH_METADATA, errorMessage, metadataOf, postMessage, resetFakes, streamMessage } from '#test/integration/routing/routing-support.ts';
import { IMAGE, PDF, startVisionEndpointsGateway, TEXT_FIRST } from './vision-endpoints-support.ts';

let textUpstream: FakeUpstream;
let visionUpstream: FakeUpstream;
let gateway: TestGateway;


function body(model: string, block: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model, max_tokens: 64, messages: [{ role: 'user', content: [{ type: 'text', text: 'What is in this?' }, block] }], ...extra };
}

beforeAll(async () => {
  ({ textUpstream, visionUpstream, gateway } = await startVisionEndpointsGateway({ groq: 'gsk-image-endpoints-0001', vision: 'sk-house-vision-0001' }));
});

afterAll(async () => {
  await gateway?.close();
  await textUpstream?.close();
  await visionUpstream?.close();
});

beforeEach(() => resetFakes(textUpstream, visionUpstream));

describe('an image in a user message', () => {
  it('is served by the endpoint that reads images, the text-only one skipped without a call', async () => {
    visionUpstream.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, body('test/mixed', IMAGE, TEXT_FIRST), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(textUpstream.requests).toHaveLength(0);
    expect(visionUpstream.lastRequest().rawBody).toContain('image_url');
    expect(metadataOf(call).attempts?.map((attempt) => attempt.status)).toEqual(['unsupported', 'success']);
  });

  it('is served by the vision endpoint when streamed, too', async () => {
    visionUpstream.enqueue(reply.fixture('openai-text'));
    const call = await streamMessage(gateway, body('test/mixed', IMAGE, TEXT_FIRST));

    expect(call.status).toBe(200);
    expect(call.events.at(-1)?.event).toBe('message_stop');
    expect(textUpstream.requests).toHaveLength(0);
  });

  it('answers a 400 naming the block and the model when no endpoint reads images, calling no upstream', async () => {
    const call = await postMessage(gateway, body('test/text-only', IMAGE));

    expect(call.status, JSON.stringify(call.body)).toBe(400);
    expect((call.body.error as { type: string }).type).toBe('invalid_request_error');
    const message = errorMessage(call);
    expect(message).toContain('messages[0].content[1] is an image');
    expect(message).toContain('test/text-only');
    expect(textUpstream.requests).toHaveLength(0);
  });

  it('under require_parameters is still served by the vision endpoint alone', async () => {
    visionUpstream.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, body('test/mixed', IMAGE, { provider: { ...TEXT_FIRST.provider, require_parameters: true } }), WITH_METADATA);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(textUpstream.requests).toHaveLength(0);
    expect(metadataOf(call).attempts?.map((attempt) => attempt.status)).toEqual(['success']);
  });

  it('leaves a text-only endpoint a request without images', async () => {
    textUpstream.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, body('test/text-only', { type: 'text', text: 'No picture today.' }));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(textUpstream.requests).toHaveLength(1);
  });
});

describe('a PDF in a user message', () => {
  it('answers a 400 naming the block and the model where no endpoint reads PDFs', async () => {
    const call = await postMessage(gateway, body('test/text-only', PDF));

    expect(call.status, JSON.stringify(call.body)).toBe(400);
    const message = errorMessage(call);
    expect(message).toContain('messages[0].content[1] is a PDF document');
    expect(message).toContain('test/text-only');
    expect(message).toContain('file-parser');
    expect(textUpstream.requests).toHaveLength(0);
  });
});

describe('an image in a user message of a request with gateway tools (the tool loop)', () => {
  const DATETIME = { type: 'gateway:datetime' };

  it('runs its steps on the endpoint that reads images', async () => {
    visionUpstream.enqueue(reply.fixture('openai-text'));
    const call = await postMessage(gateway, body('test/mixed', IMAGE, { ...TEXT_FIRST, tools: [DATETIME] }));

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(textUpstream.requests).toHaveLength(0);
    expect(visionUpstream.lastRequest().rawBody).toContain('image_url');
  });

  it('answers the 400 naming the block and the model where no endpoint reads images', async () => {
    const call = await postMessage(gateway, body('test/text-only', IMAGE, { tools: [DATETIME] }));

    expect(call.status, JSON.stringify(call.body)).toBe(400);
    expect(errorMessage(call)).toContain('messages[0].content[1] is an image, which test/text-only on Groq cannot read');
    expect(textUpstream.requests).toHaveLength(0);
  });
});
