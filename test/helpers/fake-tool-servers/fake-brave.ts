/**
 * A fake Brave Search API: `GET /res/v1/web/search?q=...&count=N` with `X-Subscription-Token`, answered in
 * Brave's `WebSearchApiResponse` format (query, mixed, type, web.results[] with title, url, description,
 * page_age, age, profile, meta_url, ...), errors as Brave's `ErrorResponse`.
 * @see https://api-dashboard.search.brave.com/app/documentation/web-search/responses
 */
import { startScriptedServer, type ScriptedReply, type ScriptedServer } from './scripted-json-server.ts';

/** Starts a fake Brave Search API on 127.0.0.1. */
export function startFakeBrave(): Promise<ScriptedServer> {
  return startScriptedServer(['/res/v1/web/search']);
}

/** One web result as Brave lists it. */
export function braveResult(options: { url: string; title: string; description: string; pageAge?: string; age?: string }) {
  const parsed = new URL(options.url);
  return {
    title: options.title,
    url: options.url,
    is_source_local: false,
    is_source_both: false,
    description: options.description,
    ...(options.pageAge ? { page_age: options.pageAge } : {}),
    profile: { name: parsed.hostname, url: options.url, long_name: parsed.hostname, img: 'https://imgs.search.brave.com/favicon.png' },
    language: 'en',
    family_friendly: true,
    type: 'search_result',
    subtype: 'generic',
    is_live: false,
    meta_url: { scheme: parsed.protocol.slice(0, -1), netloc: parsed.host, hostname: parsed.hostname, favicon: 'https://imgs.search.brave.com/favicon.png', path: `› ${parsed.pathname.slice(1)}` },
    ...(options.age ? { age: options.age } : {}),
  };
}

/** A 200 answer; with no results Brave leaves out `web`. */
export function braveAnswer(query: string, results: ReturnType<typeof braveResult>[]): ScriptedReply {
  return {
    body: {
      query: { original: query, show_strict_warning: false, is_navigational: false, is_news_breaking: false, spellcheck_off: true, country: 'us', bad_results: false, should_fallback: false, postal_code: '', city: '', header_country: '', more_results_available: true, state: '' },
      mixed: { type: 'mixed', main: results.map((_, index) => ({ type: 'web', index, all: false })), top: [], side: [] },
      type: 'search',
      ...(results.length > 0 ? { web: { type: 'search', results, family_friendly: true } } : {}),
    },
  };
}

/** Brave's error answer. */
export function braveError(status: number, code: string, detail: string): ScriptedReply {
  return {
    status,
    body: { type: 'ErrorResponse', error: { id: '5d832250-9396-4f6e-b84a-2a1fe524cd7d', status, code, detail, meta: { component: code.startsWith('SUBSCRIPTION') ? 'authentication' : 'rate_limiter' } }, time: 1663072993 },
  };
}
