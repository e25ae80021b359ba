/**
 * convertToAiSdkCallOptions on Anthropic's `search_result` blocks and `content` document sources, for every
 * AI SDK family: text the model reads (a search result's title, source and texts; a content document's title,
 * context and texts), a content document's images as file parts, cache markers as on a text block (Bedrock's
 * cache point, a warning elsewhere), citations dropped with a warning, and what a vendor cannot take refused
 * by name.
 */
import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { UnsupportedFeatureError } from '#src/errors.ts';
import { vendorProfile, type AiSdkFamily } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { convertToAiSdkCallOptions } from '#src/providers/ai-sdk/convert-to-ai-sdk-call-options.ts';

const PNG = 'iVBORw0KGgo=';
const FAMILIES: AiSdkFamily[] = ['openai-chat', 'openai-responses', 'azure', 'openai-compatible', 'google', 'bedrock'];
/** Bedrock takes explicit cache points; the other families cache on their own. */
const BEDROCK_CACHE = { providerOptions: { bedrock: { cachePoint: { type: 'default' } } } };

function convert(family: AiSdkFamily, messages: MessageRequest['messages']) {
  const tools = [{ name: 'lookup', input_schema: { type: 'object' } as never }];
  return convertToAiSdkCallOptions({ request: { model: 'vendor/model', max_tokens: 512, tools, messages }, profile: vendorProfile(family) });
}

function cacheWarning(family: AiSdkFamily): string[] {
  return family === 'bedrock' ? [] : [`cache_control dropped: ${vendorProfile(family).label} caches prompts automatically, without breakpoints`];
}

const searchResult = {
  type: 'search_result' as const,
  source: 'https://kb.example.com/paris',
  title: 'Paris',
  content: [
    { type: 'text' as const, text: 'Paris is the capital of France.' },
    { type: 'text' as const, text: '' },
    { type: 'text' as const, text: 'About 2.1 million people live there.' },
  ],
  citations: { enabled: true },
};
const SEARCH_TEXT = 'Search result: Paris\nSource: https://kb.example.com/paris\n\nParis is the capital of France.\n\nAbout 2.1 million people live there.';
const image = { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png', data: PNG } };
const imageFile = { type: 'file', mediaType: 'image/png', data: { type: 'data', data: PNG } };
const toolCall = { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 't1', name: 'lookup', input: {} as never }] };

describe.each(FAMILIES)('on %s', (family) => {
  const cache = family === 'bedrock' ? BEDROCK_CACHE : {};

  it('a search_result is its title, source and texts, its marker as a text block’s, its citations dropped with a warning', () => {
    const { value, warnings } = convert(family, [{ role: 'user', content: [{ ...searchResult, cache_control: { type: 'ephemeral' } }, { type: 'text', text: 'Capital?' }] }]);
    expect(value.prompt).toEqual([{ role: 'user', content: [{ type: 'text', text: SEARCH_TEXT, ...cache }, { type: 'text', text: 'Capital?' }] }]);
    expect(warnings).toEqual(['messages[0].content[0].citations dropped: citations are Anthropic’s', ...cacheWarning(family)]);
  });

  it('a marker on a text inside a search_result or a content document is that block’s', () => {
    const markedText = { type: 'text' as const, text: 'Paris is the capital of France.', cache_control: { type: 'ephemeral' as const } };
    const { value, warnings } = convert(family, [
      { role: 'user', content: [{ ...searchResult, content: [markedText] }, { type: 'document', source: { type: 'content', content: [markedText] } }, { type: 'text', text: 'Capital?' }] },
    ]);
    expect(value.prompt).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Search result: Paris\nSource: https://kb.example.com/paris\n\nParis is the capital of France.', ...cache },
          { type: 'text', text: 'Paris is the capital of France.', ...cache },
          { type: 'text', text: 'Capital?' },
        ],
      },
    ]);
    expect(warnings).toEqual(['messages[0].content[0].citations dropped: citations are Anthropic’s', ...cacheWarning(family)]);
  });

  it('a search_result in a tool result is the result’s text', () => {
    const { value, warnings } = convert(family, [
      { role: 'user', content: 'Paris?' },
      toolCall,
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [searchResult, { type: 'text', text: '1 result' }] }] },
    ]);
    expect(value.prompt.at(-1)).toEqual({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'lookup', output: { type: 'text', value: `${SEARCH_TEXT}\n1 result` } }] });
    expect(warnings).toEqual(['messages[2].content[0].content[0].citations dropped: citations are Anthropic’s']);
  });

  it('a content document is its title, context and texts with its images in place, its marker on its last part', () => {
    const document = {
      type: 'document' as const,
      title: 'Atlas',
      context: 'A school atlas',
      source: { type: 'content' as const, content: [{ type: 'text' as const, text: 'France' }, { type: 'text' as const, text: 'Spain' }, image, { type: 'text' as const, text: 'Italy' }] },
      citations: { enabled: true },
      cache_control: { type: 'ephemeral' as const },
    };
    const { value, warnings } = convert(family, [{ role: 'user', content: [document] }]);
    expect(value.prompt).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Atlas\n\nA school atlas\n\nFrance\n\nSpain' }, imageFile, { type: 'text', text: 'Italy', ...cache }] }]);
    // The context is read: only the citations are dropped.
    expect(warnings).toEqual(['messages[0].content[0].citations dropped: citations are Anthropic’s', ...cacheWarning(family)]);
  });

  it('a content document given as a string, or starting with an image, keeps that order', () => {
    const { value } = convert(family, [
      {
        role: 'user',
        content: [
          { type: 'document', source: { type: 'content', content: 'Lyon is in France.' } },
          { type: 'document', title: 'Map', source: { type: 'content', content: [image] } },
        ],
      },
    ]);
    expect(value.prompt).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Lyon is in France.' }, { type: 'text', text: 'Map' }, imageFile] }]);
  });

  it('a content document in a tool result is the result’s content, its image a file of it', () => {
    const document = { type: 'document' as const, title: 'Atlas', source: { type: 'content' as const, content: [{ type: 'text' as const, text: 'France' }, image] } };
    const { value } = convert(family, [{ role: 'user', content: 'Atlas?' }, toolCall, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [document] }] }]);
    expect(value.prompt.at(-1)).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 't1', toolName: 'lookup', output: { type: 'content', value: [{ type: 'text', text: 'Atlas\n\nFrance' }, imageFile] } }],
    });
  });
});

describe('what a vendor cannot take in these blocks', () => {
  const urlImage = { type: 'image' as const, source: { type: 'url' as const, url: 'https://example.com/map.png' } };
  const withUrlImage: MessageRequest['messages'] = [{ role: 'user', content: [{ type: 'document', source: { type: 'content', content: [urlImage] } }] }];

  it.each(FAMILIES)('an image URL in a content document goes where %s fetches image URLs, else a 400 naming it', (family) => {
    const profile = vendorProfile(family);
    if (profile.remoteUrls.image) {
      expect(convert(family, withUrlImage).value.prompt).toEqual([{ role: 'user', content: [{ type: 'file', mediaType: 'image', data: { type: 'url', url: new URL('https://example.com/map.png') } }] }]);
    } else {
      expect(() => convert(family, withUrlImage)).toThrow(new UnsupportedFeatureError(`image URL sources (send the image as base64) is not supported by ${profile.label}`));
    }
  });

  it.each([
    ['a block type a content document cannot hold', [{ role: 'user', content: [{ type: 'document', source: { type: 'content', content: [{ type: 'future_chunk' }] } }] }], 'future_chunk blocks in document content'],
    ['an unknown property of a search result', [{ role: 'user', content: [{ ...searchResult, rank: 1 }] }], 'messages[0].content[0].rank'],
    ['an unknown property of a content source', [{ role: 'user', content: [{ type: 'document', source: { type: 'content', content: 'x', encoding: 'utf-8' } }] }], 'messages[0].content[0].source.encoding'],
    ['an unknown property of a content document’s text', [{ role: 'user', content: [{ type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'x', lang: 'en' }] } }] }], 'messages[0].content[0].source.content[0].lang'],
  ])('refuses %s, naming it', (_name, messages, what) => {
    expect(() => convert('google', messages as MessageRequest['messages'])).toThrow(new UnsupportedFeatureError(`${what} is not supported by Google Gemini`));
  });

  it('still drops a plain-text document’s context with a warning', () => {
    const { value, warnings } = convert('openai-chat', [{ role: 'user', content: [{ type: 'document', title: 'Atlas', context: 'ctx', source: { type: 'text', media_type: 'text/plain', data: 'France' } }] }]);
    expect(value.prompt).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Atlas\n\nFrance' }] }]);
    expect(warnings).toEqual(['messages[0].content[0].context dropped: document context is Anthropic’s']);
  });
});
