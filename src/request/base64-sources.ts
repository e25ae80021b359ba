/**
 * The base64 text of image and document sources (`source.type: base64`) must be base64. The gateway reads it:
 * it hands it to the AI SDK's vendors as it stands, where OpenAI is sent it as a `data:` URL and answers about
 * an `image_url` the client never wrote, Gemini and Bedrock about bytes fields of their own formats, and
 * Anthropic answers `invalid base64 data`. So the gateway answers the mistake itself, before any upstream call
 * (no attempt, no fallback spent on it), naming the field, for every provider alike.
 *
 * Refused only what no vendor decodes: a character outside both base64 alphabets (standard and URL-safe) and
 * white space, padding anywhere but at the end, a length no byte sequence encodes, an empty text, and a whole
 * `data:` URL (a frequent slip, named as such). White space, missing padding and the URL-safe alphabet are left
 * to the upstream, which may accept them.
 */
import type { ContentBlockParam, MessageRequest } from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';
import { contentBlocks } from '#src/request/message-content.ts';
import { fieldName } from '#src/http/validation-reason.ts';

const ALPHABET_ONLY = /^[A-Za-z0-9+/=_-]*$/;
const NOT_BASE64 = /[^A-Za-z0-9+/=_\-\s]/;
const WHITE_SPACE_RUNS = /\s+/g;
const PADDING_TAIL = /^={1,2}$/;
// A UTF-16 code unit above 0xFF. Node's fallback decoder reads a two-byte string's units by their low byte
// (`ń`, U+0144, as `D`), so only text without one can be counted by decoding. On a one-byte string, which
// is what JSON.parse makes of base64 text, V8 answers this without reading the text.
const WIDE_UNIT = /[^\u0000-\u00ff]/;
// Decoded in slices of whole 4-character groups into one small buffer: no allocation the size of the image.
const SLICE_CHARACTERS = 64 * 1024;
let slices: Buffer | undefined;

/**
 * Whether `data` is base64 every vendor decodes, decided by Node's native decoder rather than a regular
 * expression over the text (one pass of SIMD decoding instead of a character-class scan: bench/base64-check.ts).
 * The decoders (simdutf's, and Node's fallback for what simdutf refuses) give 6 bits per character of either
 * base64 alphabet and nothing for any other character: one they skip (white space, a stray byte), stop at
 * (`=` before the end) or do not read. So `n` characters before at most two closing `=` decode to
 * floor(3n/4) bytes only when every one of them is an alphabet character: one fewer character never gives
 * more bytes, and gives fewer from any `n` but 4k+1, which is refused anyway. Anything else answers false and
 * is judged character by character, so the answer is the same either way. Pure.
 */
function decodesWhole(data: string): boolean {
  if (WIDE_UNIT.test(data)) return false;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  const symbols = data.length - padding;
  if (symbols === 0 || symbols % 4 === 1) return false;
  slices ??= Buffer.allocUnsafe((SLICE_CHARACTERS / 4) * 3);
  let bytes = 0;
  for (let start = 0; start < data.length; start += SLICE_CHARACTERS) bytes += slices.write(data.slice(start, start + SLICE_CHARACTERS), 'base64');
  return bytes === Math.floor((symbols * 3) / 4);
}

/** What is wrong with `data` as base64 text, or undefined when a vendor may decode it. Pure. */
export function base64Problem(data: string): string | undefined {
  if (data.startsWith('data:')) return 'is a data: URL, not base64 text: send only the text after `base64,`';
  // The common case, megabytes of well-formed base64, in one native pass (about 1 ms for 5 MB where the scan
  // below took 6-13 ms on a busy 2-core machine). Only text it does not accept is scanned to say why.
  if (decodesWhole(data)) return undefined;
  // One scan of the text when it holds only the alphabet; white space or a stray character costs a second.
  let compact = data;
  if (!ALPHABET_ONLY.test(data)) {
    const foreign = NOT_BASE64.exec(data);
    if (foreign) return `is not base64: it holds ${JSON.stringify(foreign[0])} (character ${foreign.index + 1}), which base64 does not use`;
    compact = data.replace(WHITE_SPACE_RUNS, '');
  }
  if (compact.length === 0) return 'is empty';
  const padding = compact.indexOf('=');
  if (padding !== -1 && !PADDING_TAIL.test(compact.slice(padding))) return 'is not base64: `=` (padding) may only end it, at most twice';
  const symbols = padding === -1 ? compact.length : padding;
  if (symbols % 4 === 1) return `is not base64: ${symbols} base64 characters encode no byte sequence (the text is cut short or has one character too many)`;
  return undefined;
}

type Source = { type?: unknown; data?: unknown; content?: unknown };

function sourceOf(block: ContentBlockParam): Source | undefined {
  if (block.type !== 'image' && block.type !== 'document') return undefined;
  const source = (block as { source?: unknown }).source;
  return typeof source === 'object' && source !== null ? (source as Source) : undefined;
}

/** Checks one image or document block, and the images of a content document; `path` is its JSON pointer. */
function checkBlock(block: ContentBlockParam, path: string): void {
  const source = sourceOf(block);
  if (!source) return;
  if (source.type === 'base64' && typeof source.data === 'string') {
    const problem = base64Problem(source.data);
    if (problem !== undefined) {
      const pointer = `${path}/source/data`;
      throw new BadRequestError(`${fieldName(pointer)} ${problem}`, { details: [{ path: pointer, message: problem }] });
    }
  }
  if (source.type === 'content' && Array.isArray(source.content)) checkBlocks(source.content, `${path}/source/content`);
}

function checkBlocks(blocks: readonly unknown[], path: string): void {
  blocks.forEach((block, index) => {
    if (typeof block !== 'object' || block === null) return;
    const typed = block as ContentBlockParam;
    checkBlock(typed, `${path}/${index}`);
    if (typed.type === 'tool_result' && Array.isArray((typed as { content?: unknown }).content)) checkBlocks((typed as { content: unknown[] }).content, `${path}/${index}/content`);
  });
}

/**
 * Throws a 400 naming the field when an image or document of the request's messages (in a tool result or a
 * content document included) carries base64 text no vendor decodes.
 * @see Base64ImageSource, Base64DocumentSource in openapi/components/schemas/media-content-blocks.yaml
 */
export function checkBase64Sources(request: Pick<MessageRequest, 'messages'>): void {
  request.messages.forEach((message, index) => {
    const blocks = contentBlocks(message);
    if (blocks.length > 0) checkBlocks(blocks, `/body/messages/${index}/content`);
  });
}
