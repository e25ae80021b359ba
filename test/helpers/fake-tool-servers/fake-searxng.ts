/**
 * A fake SearXNG instance: `GET /search?q=...&format=json` answered in SearXNG's JSON format (the object its
 * webapp writes for `format=json`: query, number_of_results, results, answers, corrections, infoboxes,
 * suggestions, unresponsive_engines as [engine, message] pairs).
 * @see https://docs.searxng.org/dev/search_api.html
 */
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from './scripted-json-server.ts';

/** Starts a fake SearXNG on 127.0.0.1. */
export function startFakeSearxng(): Promise<ScriptedServer> {
  return startScriptedServer(['/search']);
}

/** One result as SearXNG's JSON lists it. */
export function searxngResult(options: { url: string; title: string; content: string; engine?: string; publishedDate?: string | null }) {
  const parsed = new URL(options.url);
  const engine = options.engine ?? 'duckduckgo';
  return {
    url: options.url,
    title: options.title,
    content: options.content,
    engine,
    parsed_url: [parsed.protocol.slice(0, -1), parsed.host, parsed.pathname, '', parsed.search.slice(1), parsed.hash.slice(1)],
    template: 'default.html',
    engines: [engine],
    positions: [1],
    publishedDate: options.publishedDate ?? null,
    score: 1,
    category: 'general',
  };
}

/** A 200 answer with these results. */
export function searxngAnswer(query: string, results: ReturnType<typeof searxngResult>[], unresponsive: [string, string][] = []): ScriptedReply {
  return {
    body: {
      query,
      number_of_results: 0,
      results,
      answers: [],
      corrections: [],
      infoboxes: [],
      suggestions: [`${query} today`],
      unresponsive_engines: unresponsive,
    },
  };
}
