/**
 * Where the images and PDFs of a tool result go when the vendor's tool result cannot hold them as Anthropic's
 * `tool_result` does (Claude Code's `Read` of a screenshot answers with an image block only).
 *
 * - OpenAI Chat Completions takes a tool message's content as text only, and the AI SDK's OpenAI package
 *   writes a result with files as the JSON of its parts: the model would read the image as base64 text (a screenshot
 *   is hundreds of thousands of tokens) and never see it. The result keeps its text and says where its files
 *   went; the files follow in a user message right after the tool messages, where Chat Completions takes them.
 * - Gemini takes exactly one `functionResponse` per function call. For models before Gemini 3 the AI SDK's
 *   Google package writes one per text part of a result and a bare `inlineData` part per file, so a result
 *   holding only an image answered no call and Gemini refused the turn (400, "the number of function response
 *   parts is equal to the number of function call parts"). The result becomes one text part (its texts
 *   joined, or a line naming its files) followed by its files: one response per call on every Gemini model.
 * - OpenAI-compatible servers write a result as the JSON of its parts unless their `supportsMultiPartToolContent`
 *   quirk says they take content parts: where the endpoint reads images, the files go as for OpenAI Chat; where
 *   it does not (many open-weight models), a file would make the vendor refuse the turn and its base64 text
 *   would cost hundreds of thousands of tokens the model cannot use, so a short note stands in for it.
 */
import type { LanguageModelV4Message, LanguageModelV4Prompt, LanguageModelV4ToolResultOutput, LanguageModelV4ToolResultPart } from '@ai-sdk/provider';
import type { AiSdkFamily } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import type { ProviderQuirks } from '#src/catalog/catalog-types.ts';

/** How a family's tool results carry files: as the AI SDK writes them, in a user message after them, or beside one text part. */
export type ToolResultFilePlacement = 'in-result' | 'user-turn' | 'one-text-first';

/** What the endpoint reads (its catalog `vision` and `pdf` capabilities). */
export interface FileInputs {
  images: boolean;
  pdfs: boolean;
}

type ContentOutput = Extract<LanguageModelV4ToolResultOutput, { type: 'content' }>;
type ContentItem = ContentOutput['value'][number];
type FileItem = Extract<ContentItem, { type: 'file' }>;
type UserMessage = Extract<LanguageModelV4Message, { role: 'user' }>;

/**
 * The placement a family needs. An OpenAI-compatible server takes files in the result when its
 * `supportsMultiPartToolContent` quirk says so, else (tool messages as text) as OpenAI Chat does.
 */
export function toolResultFilePlacement(family: AiSdkFamily, quirks: Pick<ProviderQuirks, 'supportsMultiPartToolContent'> = {}): ToolResultFilePlacement {
  switch (family) {
    case 'openai-chat':
    case 'azure':
      return 'user-turn';
    case 'google':
      return 'one-text-first';
    case 'openai-compatible':
      return quirks.supportsMultiPartToolContent === true ? 'in-result' : 'user-turn';
    default:
      return 'in-result';
  }
}

/**
 * Which files of a tool result the family's endpoint is sent. Only OpenAI-compatible endpoints are held to
 * their capabilities: the other families' models all read images and PDFs (a PDF refused elsewhere is a 400
 * of the translator's own, with a precise message).
 */
export function readableFiles(family: AiSdkFamily, inputs: FileInputs): (mediaType: string) => boolean {
  if (family !== 'openai-compatible') return () => true;
  return (mediaType) => (mediaType.startsWith('image/') ? inputs.images : inputs.pdfs);
}

function isFile(item: ContentItem): item is FileItem {
  return item.type === 'file';
}

function textsOf(output: ContentOutput): string[] {
  return output.value.flatMap((item) => (item.type === 'text' ? [item.text] : []));
}

/** "an image", "2 images and a PDF": what a result's files are, for the text that stands in for them. */
function describeFiles(files: readonly FileItem[]): string {
  const images = files.filter((file) => file.mediaType.startsWith('image')).length;
  const others = files.length - images;
  const count = (n: number, one: string, many: string) => (n === 1 ? one : `${n} ${many}`);
  const named = [images > 0 ? count(images, 'an image', 'images') : '', others > 0 ? count(others, 'a document', 'documents') : ''].filter((part) => part !== '');
  return named.join(' and ');
}

function filesOf(part: LanguageModelV4ToolResultPart): FileItem[] {
  return part.output.type === 'content' ? part.output.value.filter(isFile) : [];
}

/** One text part, then the files: what Gemini reads as one function response with the files beside it. */
function oneTextFirst(part: LanguageModelV4ToolResultPart): LanguageModelV4ToolResultPart {
  const files = filesOf(part);
  if (files.length === 0 || part.output.type !== 'content') return part;
  const texts = textsOf(part.output);
  const text = texts.length > 0 ? texts.join('\n') : `The tool returned ${describeFiles(files)}.`;
  return { ...part, output: { ...part.output, value: [{ type: 'text', text }, ...files] } };
}

/** The result as text, saying where its files went. */
function withoutFiles(part: LanguageModelV4ToolResultPart, files: readonly FileItem[]): LanguageModelV4ToolResultPart {
  const texts = part.output.type === 'content' ? textsOf(part.output) : [];
  const note = `[The tool returned ${describeFiles(files)}, attached to the next user message.]`;
  return { ...part, output: { type: 'text', value: [...texts, note].join('\n') } };
}

function filesMessage(files: readonly FileItem[]): UserMessage {
  return {
    role: 'user',
    content: [
      { type: 'text', text: 'Attached: what the tool calls above returned as files.' },
      ...files.map((file) => ({ type: 'file' as const, data: file.data, mediaType: file.mediaType, ...(file.filename ? { filename: file.filename } : {}) })),
    ],
  };
}

/**
 * Each tool message without its files, and after a run of tool messages one user message holding them: a
 * message between two tool messages would part results from the assistant turn whose calls they answer.
 */
function moveFilesToUserTurns(prompt: LanguageModelV4Prompt): LanguageModelV4Prompt {
  const placed: LanguageModelV4Message[] = [];
  let pending: FileItem[] = [];
  const flush = () => {
    if (pending.length > 0) placed.push(filesMessage(pending));
    pending = [];
  };
  for (const message of prompt) {
    if (message.role !== 'tool') {
      flush();
      placed.push(message);
      continue;
    }
    const content = message.content.map((part) => {
      if (part.type !== 'tool-result') return part;
      const files = filesOf(part);
      if (files.length === 0) return part;
      pending.push(...files);
      return withoutFiles(part, files);
    });
    placed.push({ ...message, content });
  }
  flush();
  return placed;
}

function unreadableNote(file: FileItem): string {
  return `[The tool returned ${describeFiles([file])} (${file.mediaType}), which this model cannot read.]`;
}

/**
 * The result with each file the endpoint cannot read replaced by a note; left with no file, it is plain text
 * (as parts, a text-only server would be sent their JSON).
 */
function withoutUnreadable(part: LanguageModelV4ToolResultPart, readable: (mediaType: string) => boolean): LanguageModelV4ToolResultPart {
  if (part.output.type !== 'content' || filesOf(part).every((file) => readable(file.mediaType))) return part;
  const value = part.output.value.map((item): ContentItem => (isFile(item) && !readable(item.mediaType) ? { type: 'text', text: unreadableNote(item) } : item));
  if (value.some(isFile)) return { ...part, output: { ...part.output, value } };
  return { ...part, output: { type: 'text', value: value.flatMap((item) => (item.type === 'text' ? [item.text] : [])).join('\n') } };
}

function describeUnreadable(prompt: LanguageModelV4Prompt, readable: (mediaType: string) => boolean): LanguageModelV4Prompt {
  return prompt.map((message) => (message.role === 'tool' ? { ...message, content: message.content.map((part) => (part.type === 'tool-result' ? withoutUnreadable(part, readable) : part)) } : message));
}

/**
 * The prompt with every tool result's files placed as `placement` says, those `readable` refuses (default:
 * none) replaced by a note saying the model cannot read them.
 */
export function placeToolResultFiles(given: LanguageModelV4Prompt, placement: ToolResultFilePlacement, readable?: (mediaType: string) => boolean): LanguageModelV4Prompt {
  const prompt = readable ? describeUnreadable(given, readable) : given;
  if (placement === 'in-result') return prompt;
  if (placement === 'user-turn') return moveFilesToUserTurns(prompt);
  return prompt.map((message) => (message.role === 'tool' ? { ...message, content: message.content.map((part) => (part.type === 'tool-result' ? oneTextFirst(part) : part)) } : message));
}
