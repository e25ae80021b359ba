import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { UnsupportedFeatureError } from '#src/errors.ts';
import { checkReadableMedia, type MediaReader } from '#src/messages/readable-media.ts';

const IMAGE = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } };
const PDF = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } };
const PDF_URL = { type: 'document', source: { type: 'url', url: 'https://example.invalid/a.pdf' } };
const TEXT_DOCUMENT = { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Plain words' } };
const CONTENT_DOCUMENT = { type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'Chapter 1' }, IMAGE] } };
const TEXT_CONTENT_DOCUMENT = { type: 'document', source: { type: 'content', content: 'Chapter 1' } };
const IMAGE_RESULT = { type: 'tool_result', tool_use_id: 'toolu_1', content: [IMAGE, PDF] };

function reader(imageInput: boolean, pdfInput: boolean, family: MediaReader['provider']['family'] = 'openai-compatible'): MediaReader {
  return { model: 'groq/qwen3-32b', imageInput, pdfInput, provider: { displayName: 'Groq', family } };
}

function request(...blocks: object[]): Pick<MessageRequest, 'messages'> {
  return { messages: [{ role: 'user', content: 'Hello' }, { role: 'user', content: [{ type: 'text', text: 'Look' }, ...blocks] }] } as Pick<MessageRequest, 'messages'>;
}

describe('checkReadableMedia', () => {
  it.each([
    ['an image, endpoint with vision', request(IMAGE), reader(true, false)],
    ['a PDF, endpoint with PDF input', request(PDF, PDF_URL), reader(false, true)],
    ['a plain-text document, text-only endpoint', request(TEXT_DOCUMENT), reader(false, false)],
    ['files inside a tool result, text-only endpoint (a note replaces them)', request(IMAGE_RESULT), reader(false, false)],
    ['text only, text-only endpoint', request(), reader(false, false)],
    ['a content document holding an image, endpoint with vision', request(CONTENT_DOCUMENT), reader(true, false)],
    ['a content document of text only, text-only endpoint', request(TEXT_CONTENT_DOCUMENT), reader(false, false)],
    ['an image and a PDF to an Anthropic-format upstream, which answers for itself', request(IMAGE, PDF), reader(false, false, 'anthropic')],
  ])('lets through %s', (_name, sent, attempt) => {
    expect(() => checkReadableMedia(sent, attempt)).not.toThrow();
  });

  it.each([
    ['an image', request(IMAGE), reader(false, true), 'messages[1].content[1] is an image, which groq/qwen3-32b on Groq cannot read'],
    ['a base64 PDF', request(TEXT_DOCUMENT, PDF), reader(true, false), 'messages[1].content[2] is a PDF document, which groq/qwen3-32b on Groq cannot read'],
    ['a URL PDF', request(PDF_URL), reader(true, false), 'messages[1].content[1] is a PDF document'],
    ['a content document holding an image', request(CONTENT_DOCUMENT), reader(false, true), 'messages[1].content[1] is a document holding images, which groq/qwen3-32b on Groq cannot read (it has no vision input)'],
  ])('refuses %s the endpoint cannot read, naming the block and the model', (_name, sent, attempt, message) => {
    expect(() => checkReadableMedia(sent, attempt)).toThrow(UnsupportedFeatureError);
    expect(() => checkReadableMedia(sent, attempt)).toThrow(message);
  });
});
