import { beforeAll, describe, expect, it } from 'vitest';
import type { MessageParam, MessageRequest } from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';
import { NO_PDF_TEXT, describeBlockPath, findPdfs, parsePdfs, restorePdfs } from '#src/plugins/file-parser.ts';
import { placeTopLevelCacheBreakpoint } from '#src/request/cache-breakpoints.ts';
import { makePdf } from '#test/helpers/fake-tool-servers/make-pdf.ts';

let pdf: string;
let blank: string;
const pdfBlock = (data: string, title?: string) => ({ type: 'document' as const, ...(title ? { title } : {}), source: { type: 'base64' as const, media_type: 'application/pdf' as const, data } });

beforeAll(async () => {
  pdf = Buffer.from(await makePdf({ title: 'Quarterly figures', pages: [['Revenue: 12 million'], ['Costs: 9 million']] })).toString('base64');
  blank = Buffer.from(await makePdf({ pages: [[]] })).toString('base64');
});

function request(messages: unknown[]): MessageRequest {
  return { model: 'm/x', max_tokens: 10, messages: messages as MessageParam[] };
}

describe('findPdfs', () => {
  it('finds base64 PDFs in messages and tool results, not URL PDFs or text documents', () => {
    const found = findPdfs(request([
      { role: 'user', content: [{ type: 'text', text: 'hi' }, pdfBlock('AAAA')] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'x' }, pdfBlock('BBBB')] }, { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } }] },
      { role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain' } }] },
    ]).messages);
    expect(found.map((entry) => describeBlockPath(entry.path))).toEqual(['messages[0].content[1]', 'messages[2].content[0].content[1]']);
  });
});

describe('parsePdfs', () => {
  it('puts each PDF\'s text in a plain-text document with the block\'s title, else the PDF\'s', async () => {
    const parsed = await parsePdfs(request([{ role: 'user', content: [pdfBlock(pdf, 'figures.pdf'), pdfBlock(pdf), { type: 'text', text: 'Sum them.' }] }]));
    const content = parsed.request.messages[0]?.content as { title?: string; source: { type: string; data: string } }[];
    expect(content[0]).toMatchObject({ type: 'document', title: 'figures.pdf', source: { type: 'text', media_type: 'text/plain' } });
    expect(content[0]?.source.data).toBe('Revenue: 12 million\n\nCosts: 9 million');
    expect(content[1]?.title).toBe('Quarterly figures');
    expect(parsed.parsed.size).toBe(2);
  });

  it('says so when a PDF has no text layer', async () => {
    const parsed = await parsePdfs(request([{ role: 'user', content: [pdfBlock(blank)] }]));
    expect((parsed.request.messages[0]?.content as { source: { data: string } }[])[0]?.source.data).toBe(NO_PDF_TEXT);
  });

  it('gives the request back untouched when it has no PDF', async () => {
    const plain = request([{ role: 'user', content: 'hi' }]);
    expect((await parsePdfs(plain)).request).toBe(plain);
  });

  it('refuses a corrupt PDF with a 400 naming its block', async () => {
    const corrupt = Buffer.from('%PDF-1.4 garbage').toString('base64');
    const failing = request([{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [pdfBlock(corrupt)] }] }]);
    const error = await parsePdfs(failing).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).publicMessage).toBe('Invalid request parameters: messages[2].content[0].content[0] is not a readable PDF document');
    expect((error as BadRequestError).details).toEqual([{ path: '/body/messages/2/content/0/content/0', message: 'is not a readable PDF document' }]);
  });
});

describe('restorePdfs', () => {
  it('puts the client\'s PDFs back, with a cache marker placed on the text since', async () => {
    const original = request([{ role: 'user', content: [{ type: 'text', text: 'Read:' }, pdfBlock(pdf, 'figures.pdf')] }]);
    const parsed = await parsePdfs(original);
    const marked = placeTopLevelCacheBreakpoint({ ...parsed.request, cache_control: { type: 'ephemeral' } }) as MessageRequest;
    const restored = restorePdfs(marked, parsed.parsed);
    expect((restored.messages[0]?.content as unknown[])[1]).toEqual({ ...pdfBlock(pdf, 'figures.pdf'), cache_control: { type: 'ephemeral' } });
    expect((restored.messages[0]?.content as unknown[])[0]).toEqual({ type: 'text', text: 'Read:' });
  });

  it('restores PDFs inside tool results too', async () => {
    const parsed = await parsePdfs(request([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [pdfBlock(pdf)] }] }]));
    const restored = restorePdfs(parsed.request, parsed.parsed);
    expect((restored.messages[0]?.content as { content: unknown[] }[])[0]?.content[0]).toEqual(pdfBlock(pdf));
  });
});
