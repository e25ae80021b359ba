/**
 * `gateway:web_fetch`: fetches the URL the model gives (see fetch-url.ts for the limits and the address
 * policy) and turns the body into readable text: HTML through Readability, PDF through PDF.js, text types as
 * they are. The client sees Anthropic's `web_fetch_tool_result` with the text as a `text/plain` document.
 */
import type { WebFetchToolResultBlock } from '#src/api-types.ts';
import type { GatewayToolCall, GatewayToolOutcome, ToolExecutionContext, WebFetchTool } from '../server-tool-types.ts';
import { errorOutcome, textContent, usageOfOneCall } from '../tool-outcome.ts';
import { fetchUrl, type FetchedDocument } from './fetch-url.ts';
import { comparableUrl } from './prior-context-urls.ts';
import { readableTextFromHtml } from './readable-html.ts';
import { textFromPdf } from './pdf-text.ts';

/** What the model reads about the tool. */
export const WEB_FETCH_DESCRIPTION =
  'Fetches a web page or PDF by URL and returns its readable text (the main content of HTML pages, the text of PDFs). ' +
  'Use it to read a page found by a search or named in the conversation. Only public http and https URLs that appear in the ' +
  "conversation (the user's messages, earlier search or fetch results) can be fetched; do not build URLs.";

/** The input the model sends. */
export const WEB_FETCH_INPUT_SCHEMA = {
  type: 'object',
  properties: { url: { type: 'string', description: 'The absolute http or https URL to fetch.' } },
  required: ['url'],
  additionalProperties: false,
} as const;

function decodeText(document: FetchedDocument): string {
  try {
    return new TextDecoder(document.charset ?? 'utf-8').decode(document.body);
  } catch {
    // An unknown charset label: UTF-8 replaces what it cannot read rather than failing the call.
    return new TextDecoder('utf-8').decode(document.body);
  }
}

/** The readable text and title of a fetched body, by its media type. */
export async function readableContent(document: FetchedDocument): Promise<{ title: string | null; text: string }> {
  switch (document.mediaType) {
    case 'text/html':
    case 'application/xhtml+xml':
      return readableTextFromHtml(decodeText(document));
    case 'application/pdf': {
      const { title, text } = await textFromPdf(document.body);
      return { title, text };
    }
    default:
      return { title: null, text: decodeText(document) };
  }
}

/** What the model reads for a fetched page (also rebuilt from the client's block on later turns). */
export function webFetchModelText(title: string | null, url: string, text: string): string {
  return [title ? `Title: ${title}` : undefined, `URL: ${url}`, '', text].filter((line) => line !== undefined).join('\n');
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}\n\n[Content truncated at ${limit} characters.]`;
}

/** Runs one call: never throws; every refusal and failure is an error result with Anthropic's error code. */
export async function runWebFetch(call: GatewayToolCall<WebFetchTool>, context: ToolExecutionContext): Promise<GatewayToolOutcome> {
  const input = call.input as { url?: unknown } | null;
  if (typeof input !== 'object' || input === null || typeof input.url !== 'string' || input.url.trim() === '') {
    return errorOutcome(call, 'invalid_tool_input', 'the input must be {"url": "<absolute http or https URL>"}');
  }
  const address = input.url.trim();
  const comparable = comparableUrl(address);
  // An unparsable URL is fetchUrl's invalid_tool_input; a parsable one must be one the conversation holds.
  if (comparable !== undefined && !context.priorUrls.has(comparable)) {
    context.logger.info('web_fetch refused a URL not in the conversation', { error_code: 'url_not_in_prior_context' });
    return errorOutcome(call, 'url_not_in_prior_context', 'only URLs that appear in the conversation (the user\'s messages, earlier search or fetch results) can be fetched; this one does not');
  }
  const config = context.config.webFetch;
  const fetched = await fetchUrl({
    address,
    dispatcher: context.runtime.webFetchDispatcher(),
    limits: config,
    rules: call.tool.settings,
    allowlist: context.runtime.allowlist,
    signal: context.signal,
  });
  if (!fetched.ok) {
    context.logger.info('web_fetch refused or failed', { error_code: fetched.failure.errorCode, reason: fetched.failure.message });
    return errorOutcome(call, fetched.failure.errorCode, fetched.failure.message);
  }
  const { document } = fetched;
  let readable: { title: string | null; text: string };
  try {
    readable = await readableContent(document);
  } catch (error) {
    context.logger.info('web_fetch could not read the content', { media_type: document.mediaType, error });
    return errorOutcome(call, 'unsupported_content_type', `the ${document.mediaType} content could not be read`);
  }
  const text = cut(readable.text, call.tool.settings.maxContentChars);
  const retrievedAt = context.runtime.now().toISOString();
  const modelText = webFetchModelText(readable.title, document.url, text);
  const clientResult: WebFetchToolResultBlock = {
    type: 'web_fetch_tool_result',
    tool_use_id: call.id,
    content: {
      type: 'web_fetch_result',
      url: document.url,
      retrieved_at: retrievedAt,
      content: { type: 'document', title: readable.title, source: { type: 'text', media_type: 'text/plain', data: text }, citations: null },
    },
  };
  return { toolUseId: call.id, isError: false, modelContent: textContent(modelText), modelText, clientResult, usage: usageOfOneCall('web_fetch') };
}
