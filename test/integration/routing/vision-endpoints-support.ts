/**
 * The setup of the readable-media suites: a text-only endpoint (Groq's qwen3-32b) and a vision one (an
 * OpenAI-compatible "House Vision"), each on its own fake of OpenAI's Chat Completions; `test/mixed` has both,
 * `test/text-only` the text-only one alone; and the image and PDF blocks the suites send.
 */
import { startFakeOpenAiChat, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { catalogYaml, modelYaml } from './routing-support.ts';

/** A one-pixel PNG, base64. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
/** An image block of a user message. */
export const IMAGE = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } };
/** A PDF block of a user message, by URL. */
export const PDF = { type: 'document', source: { type: 'url', url: 'https://example.invalid/invoice.pdf' } };
/** The text-only endpoint first, so that serving from the vision one means the text-only one was skipped. */
export const TEXT_FIRST = { provider: { order: ['groq', 'house-vision'] } };

const TEXT_ONLY = 'capabilities: { tools: true, vision: false, pdf: false, thinking: false, caching: false, structured_output: true }';

/** Both fakes and the gateway in front of them. */
export interface VisionEndpointsGateway {
  textUpstream: FakeUpstream;
  visionUpstream: FakeUpstream;
  gateway: TestGateway;
}

/** Starts both fakes and the gateway; the providers hold the suite's own keys. */
export async function startVisionEndpointsGateway(keys: { groq: string; vision: string }): Promise<VisionEndpointsGateway> {
  const textUpstream = await startFakeOpenAiChat();
  const visionUpstream = await startFakeOpenAiChat();
  const gateway = await startTestGateway({
    catalogYaml: catalogYaml(
      [
        `  groq: { base_url: "${textUpstream.baseURL}", api_key: "${keys.groq}" }`,
        `  house-vision: { family: openai-compatible, display_name: House Vision, base_url: "${visionUpstream.baseURL}", api_key: "${keys.vision}" }`,
      ],
      [
        modelYaml('test/mixed', [
          { provider: 'groq', model: 'qwen/qwen3-32b', price: [1, 2], extra: TEXT_ONLY },
          { provider: 'house-vision', model: 'house-vl', price: [3, 4] },
        ]),
        modelYaml('test/text-only', [{ provider: 'groq', model: 'qwen/qwen3-32b', price: [1, 2] }]).replace('vision: true, pdf: true', 'vision: false, pdf: false'),
      ],
    ),
  });
  return { textUpstream, visionUpstream, gateway };
}
