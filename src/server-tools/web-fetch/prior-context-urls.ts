/**
 * The URLs `gateway:web_fetch` may fetch: those the conversation already holds, as Anthropic's web fetch
 * tool allows (`url_not_in_prior_context` otherwise). A prompt injection that asks the model to fetch
 * `https://evil.example/?q=<the user's secrets>` writes a URL nobody gave it, so it is never requested.
 * Where URLs count: every user turn (text, documents, tool results), the web search and web fetch results
 * of assistant turns the client sent back, and the search and fetch results of the loop's earlier steps
 * (links inside a fetched page included). Not the model's own words, nor other tools' results. Pure.
 */
import type { MessageParam } from '#src/api-types.ts';
import type { GatewayToolOutcome } from '../server-tool-types.ts';

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`]+/gi;
// Punctuation that may end a sentence or close brackets around a URL (as the web-fetch plugin reads it), and
// also markdown emphasis; which is part of the URL is the writer's guess, so each form counts.
const TRAILING = [/[.,;:!?)\]}>'"]+$/, /[.,;:!?)\]}>'"*_]+$/];
const FETCH_RESULT_TYPES: ReadonlySet<string> = new Set(['web_search_tool_result', 'web_fetch_tool_result']);

/** The form two URLs are compared in: parsed and serialised (host lowercased, default port dropped), no fragment. */
export function comparableUrl(text: string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  url.hash = '';
  return url.href;
}

function addUrlsOfText(text: string, urls: Set<string>): void {
  if (!text.includes('://')) return;
  for (const match of text.matchAll(URL_PATTERN)) {
    for (const form of [match[0], ...TRAILING.map((trailing) => match[0].replace(trailing, ''))]) {
      const comparable = comparableUrl(form);
      if (comparable) urls.add(comparable);
    }
  }
}

// Every string inside a block, at any depth: a tool result's nested content, a document's text, a search result's source.
function addUrlsOfValue(value: unknown, urls: Set<string>): void {
  if (typeof value === 'string') addUrlsOfText(value, urls);
  else if (Array.isArray(value)) for (const item of value) addUrlsOfValue(item, urls);
  else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) addUrlsOfValue(item, urls);
}

function isFetchResultBlock(block: unknown): boolean {
  return typeof block === 'object' && block !== null && FETCH_RESULT_TYPES.has((block as { type?: unknown }).type as string);
}

/** The URLs the client's conversation holds where they count (see the module comment), in comparable form. */
export function urlsOfConversation(messages: readonly MessageParam[]): Set<string> {
  const urls = new Set<string>();
  for (const message of messages) {
    if (message.role === 'user') addUrlsOfValue(message.content, urls);
    else if (message.role === 'assistant' && Array.isArray(message.content)) {
      for (const block of message.content) if (isFetchResultBlock(block)) addUrlsOfValue(block, urls);
    }
  }
  return urls;
}

/** Adds the URLs of a step's successful search and fetch results to `urls`. */
export function addUrlsOfOutcomes(outcomes: readonly GatewayToolOutcome[], urls: Set<string>): void {
  for (const outcome of outcomes) if (!outcome.isError && isFetchResultBlock(outcome.clientResult)) addUrlsOfValue(outcome.clientResult, urls);
}
