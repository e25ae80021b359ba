import { describe, expect, it } from 'vitest';
import type { CountTokensRequest } from '#src/api-types.ts';
import { IMAGE_TOKENS, PDF_PAGE_BYTES, PDF_PAGE_TOKENS, estimateContextTokens, estimateInputTokens } from '#src/request/estimate-input-tokens.ts';

type Fields = Pick<CountTokensRequest, 'system' | 'messages' | 'tools'>;

const user = (content: unknown) => ({ messages: [{ role: 'user', content }] }) as Fields;
/** Base64 text standing for `bytes` bytes of binary data. */
const base64Of = (bytes: number) => 'A'.repeat(Math.ceil(bytes / 3) * 4);
const pdf = (bytes: number) => ({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: base64Of(bytes) } });
const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: base64Of(3_000_000) } };
const toolUse = { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'abcd' } };

describe('estimateInputTokens: one rule per kind of content', () => {
  it.each<[string, Fields, number]>([
    ['string content: characters / 4, rounded up', user('x'.repeat(401)), 101],
    ['text blocks', user([{ type: 'text', text: 'x'.repeat(200) }, { type: 'text', text: 'y'.repeat(200) }]), 100],
    ['a string system prompt', { system: 's'.repeat(40), messages: [] } as Fields, 10],
    ['system text blocks', { system: [{ type: 'text', text: 's'.repeat(40) }], messages: [] } as Fields, 10],
    ['system messages and unknown roles', { messages: [{ role: 'system', content: 'y'.repeat(400) }, { role: 'critic_20270101', content: [{ type: 'text', text: 'z'.repeat(400) }] }] } as Fields, 200],
    ['thinking text', { messages: [{ role: 'assistant', content: [{ type: 'thinking', thinking: 't'.repeat(80), signature: 'sig' }] }] } as Fields, 20],
    ['redacted thinking: its data as text', { messages: [{ role: 'assistant', content: [{ type: 'redacted_thinking', data: 'r'.repeat(80) }] }] } as Fields, 20],
    ['a tool call: its name and JSON input', { messages: [{ role: 'assistant', content: [toolUse] }] } as Fields, Math.ceil(('lookup'.length + JSON.stringify(toolUse.input).length) / 4)],
    ['a tool result: its text', user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'r'.repeat(40) }]), 10],
    ['a tool result: its blocks, an image priced as an image', user([{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'r'.repeat(40) }, image] }]), 10 + IMAGE_TOKENS],
    ['an image, whatever its size', user([image]), IMAGE_TOKENS],
    ['an image by URL', user([{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }]), IMAGE_TOKENS],
    ['a small PDF: one page', user([pdf(20_000)]), PDF_PAGE_TOKENS],
    ['a PDF of 2.5 pages of bytes: three pages', user([pdf(PDF_PAGE_BYTES * 2.5)]), 3 * PDF_PAGE_TOKENS],
    ['a PDF by URL: one page', user([{ type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } }]), PDF_PAGE_TOKENS],
    ['a plain-text document: its text', user([{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'd'.repeat(400) } }]), 100],
    ['a content document: its blocks', user([{ type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'd'.repeat(40) }] } }]), 10],
    ['a search result: title, source and content', user([{ type: 'search_result', title: 'tt', source: 'ss', content: [{ type: 'text', text: 'c'.repeat(36) }] }]), 10],
    ['tool definitions: their JSON', { messages: [], tools: [{ name: 'a', input_schema: {} }] } as Fields, Math.ceil(JSON.stringify([{ name: 'a', input_schema: {} }]).length / 4)],
    ['an unknown block: its JSON', user([{ type: 'future_block_20270101', payload: 1 }]), Math.ceil(JSON.stringify({ type: 'future_block_20270101', payload: 1 }).length / 4)],
  ])('%s', (_name, request, tokens) => {
    expect(estimateInputTokens(request)).toBe(tokens);
  });

  it('never counts base64 data as text', () => {
    expect(estimateInputTokens(user([{ type: 'text', text: 'Hi' }, image, pdf(50_000)]))).toBe(1 + IMAGE_TOKENS + PDF_PAGE_TOKENS);
  });
});

describe('estimateContextTokens: what the context window holds', () => {
  const thinking = (text: string) => ({ type: 'thinking' as const, thinking: text, signature: 'c2ln' });
  const messages = [
    { role: 'user' as const, content: 'abcd' },
    { role: 'assistant' as const, content: [thinking('x'.repeat(400)), { type: 'text' as const, text: 'efgh' }] },
    { role: 'user' as const, content: 'ijkl' },
    { role: 'assistant' as const, content: [thinking('y'.repeat(40)), { type: 'tool_use' as const, id: 't1', name: 'f', input: {} }] },
    { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 't1', content: 'mnop' }] },
  ];

  it("leaves out earlier turns' thinking and keeps the current turn's tool cycle's", () => {
    const all = estimateInputTokens({ messages });
    expect(estimateContextTokens({ messages })).toBe(all - 100);
  });

  it('is the input estimate without thinking to leave out', () => {
    const plain = [{ role: 'user' as const, content: 'abcd' }];
    expect(estimateContextTokens({ messages: plain })).toBe(estimateInputTokens({ messages: plain }));
  });
});
