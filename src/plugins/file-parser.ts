/**
 * The `file-parser` plugin: PDF document blocks (base64 sources, in messages and in tool results) become
 * plain-text document blocks before routing, read with the gateway's one PDF extractor (unpdf, loaded on the
 * first PDF), so endpoints without PDF input become eligible. With the `native` engine, each attempt whose
 * endpoint reads PDFs gets the client's PDFs back. A PDF that cannot be read is a 400 naming its block.
 * @see FileParserPlugin in openapi/components/schemas/plugins.yaml
 */
import type { ContentBlockParam, DocumentBlockParam, MessageParam, MessageRequest } from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';
import { contentBlocks, isKnownRole } from '#src/request/message-content.ts';
import { textFromPdf } from '#src/server-tools/web-fetch/pdf-text.ts';

/** The text a PDF without a text layer becomes. */
export const NO_PDF_TEXT = '[No text could be extracted from this PDF: it may hold only scanned images.]';

/**
 * The PDFs read before routing: each text source (the object every copy of its block shares, cache markers
 * added later included) mapped to the client's original block.
 */
export type ParsedPdfs = ReadonlyMap<object, DocumentBlockParam>;

/** Where a block is: `[message, block]`, or `[message, block, nested block]` inside a tool result. */
type BlockPath = readonly [number, number] | readonly [number, number, number];

interface FoundPdf {
  path: BlockPath;
  block: DocumentBlockParam;
}

function isBase64Pdf(block: ContentBlockParam): block is DocumentBlockParam {
  if (block.type !== 'document' || !('source' in block)) return false;
  const source = block.source as { type?: unknown; media_type?: unknown; data?: unknown };
  return source.type === 'base64' && source.media_type === 'application/pdf' && typeof source.data === 'string';
}

function nested(block: ContentBlockParam): readonly ContentBlockParam[] {
  return block.type === 'tool_result' && 'content' in block && Array.isArray(block.content) ? (block.content as ContentBlockParam[]) : [];
}

/** Every base64 PDF of the request's messages, with its position. */
export function findPdfs(messages: readonly MessageParam[]): FoundPdf[] {
  const found: FoundPdf[] = [];
  messages.forEach((message, index) => {
    if (!isKnownRole(message)) return;
    contentBlocks(message).forEach((block, position) => {
      if (isBase64Pdf(block)) found.push({ path: [index, position], block });
      nested(block).forEach((inner, innerPosition) => {
        if (isBase64Pdf(inner)) found.push({ path: [index, position, innerPosition], block: inner });
      });
    });
  });
  return found;
}

/** `messages[i].content[j]` (or `.content[k]` inside a tool result), as messages name a block. */
export function describeBlockPath(path: BlockPath): string {
  return `messages[${path[0]}].content[${path[1]}]${path.length === 3 ? `.content[${path[2]}]` : ''}`;
}

async function readPdf(found: FoundPdf): Promise<DocumentBlockParam> {
  const { block, path } = found;
  const data = (block.source as { data: string }).data;
  let read: { title: string | null; text: string };
  try {
    read = await textFromPdf(Buffer.from(data, 'base64'));
  } catch (error) {
    const where = describeBlockPath(path);
    const pointer = `/body/messages/${path[0]}/content/${path[1]}${path.length === 3 ? `/content/${path[2]}` : ''}`;
    throw new BadRequestError(`${where} is not a readable PDF document`, { details: [{ path: pointer, message: 'is not a readable PDF document' }], cause: error });
  }
  const title = block.title ?? read.title;
  const source = { type: 'text', media_type: 'text/plain', data: read.text === '' ? NO_PDF_TEXT : read.text } as const;
  return { ...block, source, ...(title ? { title } : {}) } as DocumentBlockParam;
}

function replaceAt(messages: readonly MessageParam[], path: BlockPath, replacement: ContentBlockParam): MessageParam[] {
  const copy = [...messages];
  const message = copy[path[0]] as MessageParam;
  const blocks = [...contentBlocks(message)];
  if (path.length === 2) blocks[path[1]] = replacement;
  else {
    const result = blocks[path[1]] as ContentBlockParam & { content: ContentBlockParam[] };
    const inner = [...result.content];
    inner[path[2]] = replacement;
    blocks[path[1]] = { ...result, content: inner } as ContentBlockParam;
  }
  copy[path[0]] = { ...message, content: blocks } as MessageParam;
  return copy;
}

/** Reads every PDF of the request (concurrently) and gives the request with text in their place. */
export async function parsePdfs(request: MessageRequest): Promise<{ request: MessageRequest; parsed: ParsedPdfs }> {
  const found = findPdfs(request.messages);
  if (found.length === 0) return { request, parsed: new Map() };
  const read = await Promise.all(found.map(readPdf));
  let messages: MessageParam[] = [...request.messages];
  const parsed = new Map<object, DocumentBlockParam>();
  found.forEach((pdf, index) => {
    const replacement = read[index] as DocumentBlockParam;
    parsed.set(replacement.source, pdf.block);
    messages = replaceAt(messages, pdf.path, replacement);
  });
  return { request: { ...request, messages }, parsed };
}

function restoreBlock(block: ContentBlockParam, parsed: ParsedPdfs): ContentBlockParam {
  const original = block.type === 'document' && 'source' in block ? parsed.get(block.source as object) : undefined;
  if (original === undefined) return block;
  // A cache marker the planner placed on the text block belongs on the PDF now.
  const marker = 'cache_control' in block && block.cache_control ? { cache_control: block.cache_control } : {};
  return { ...original, ...marker } as ContentBlockParam;
}

/** The request with the client's PDFs back in place of their text, for an endpoint that reads PDFs. */
export function restorePdfs(request: MessageRequest, parsed: ParsedPdfs): MessageRequest {
  if (parsed.size === 0) return request;
  const messages = request.messages.map((message) => {
    if (!isKnownRole(message) || !Array.isArray(message.content)) return message;
    const content = contentBlocks(message).map((block) => {
      const inner = nested(block);
      if (inner.length > 0) return { ...block, content: inner.map((item) => restoreBlock(item, parsed)) } as ContentBlockParam;
      return restoreBlock(block, parsed);
    });
    return { ...message, content } as MessageParam;
  });
  return { ...request, messages };
}
