/**
 * The Brave Search API: `GET {base}/res/v1/web/search?q=...&count=N` with the key in `X-Subscription-Token`.
 * Results are `web.results[]` with `title`, `url`, `description` (an HTML snippet) and `page_age`/`age`; `web`
 * is absent when nothing matched. Errors are `{type: "ErrorResponse", error: {id, status, code, detail}}`:
 * 422 `SUBSCRIPTION_TOKEN_INVALID` for a bad key, 429 `RATE_LIMITED` or `QUOTA_LIMITED`.
 * @see https://api-dashboard.search.brave.com/app/documentation/web-search/get-started
 */
import type { Dispatcher } from 'undici';
import type { WebSearchConfig } from '../server-tools-config.ts';
import { backendUrl, getJson, isResponse, plainSnippet, type SearchAnswer, type SearchHit } from './search-backend.ts';
import { braveLocation, type SearchLocation } from './search-location.ts';

interface BraveResult {
  title?: unknown;
  url?: unknown;
  description?: unknown;
  page_age?: unknown;
  age?: unknown;
}

interface BraveError {
  code?: unknown;
  detail?: unknown;
}

function errorOf(body: unknown): BraveError | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const single = (body as { error?: unknown }).error;
  // The documented examples show `errors: [...]`; the live API answers `error: {...}`. Both are read.
  const listed = (body as { errors?: unknown }).errors;
  const error = typeof single === 'object' && single !== null ? single : Array.isArray(listed) ? listed[0] : undefined;
  return typeof error === 'object' && error !== null ? (error as BraveError) : undefined;
}

function failure(status: number, body: unknown): Extract<SearchAnswer, { ok: false }> {
  const error = errorOf(body);
  const code = typeof error?.code === 'string' ? error.code : undefined;
  const detail = typeof error?.detail === 'string' ? error.detail : undefined;
  const described = [code, detail].filter(Boolean).join(': ');
  if (status === 429 || code === 'RATE_LIMITED' || code === 'QUOTA_LIMITED') {
    return { ok: false, errorCode: 'too_many_requests', message: `Brave Search is limiting the gateway (${described || `HTTP ${status}`})` };
  }
  if (code === 'SUBSCRIPTION_TOKEN_INVALID') return { ok: false, errorCode: 'unavailable', message: 'Brave Search rejected the gateway\'s API key' };
  return { ok: false, errorCode: 'unavailable', message: `Brave Search answered HTTP ${status}${described ? ` (${described})` : ''}` };
}

function readHit(raw: BraveResult): SearchHit | undefined {
  if (typeof raw.url !== 'string' || typeof raw.title !== 'string') return undefined;
  const pageAge = typeof raw.page_age === 'string' ? raw.page_age : typeof raw.age === 'string' ? raw.age : null;
  return { url: raw.url, title: plainSnippet(raw.title), snippet: typeof raw.description === 'string' ? plainSnippet(raw.description) : '', pageAge };
}

/** Searches the web with the Brave Search API. */
export async function searchBrave(options: { query: string; count: number; location?: SearchLocation | undefined; config: WebSearchConfig; dispatcher: Dispatcher; signal: AbortSignal }): Promise<SearchAnswer> {
  const url = backendUrl(options.config.baseUrl, 'res/v1/web/search');
  url.searchParams.set('q', options.query);
  url.searchParams.set('count', String(options.count));
  const located = braveLocation(options.location);
  for (const [name, value] of Object.entries(located.params)) url.searchParams.set(name, value);
  // The configured headers come last: an operator's fixed X-Loc-* wins over the request's.
  const headers: Record<string, string> = { ...located.headers, ...Object.fromEntries(Object.entries(options.config.headers).map(([name, value]) => [name, value.reveal()])) };
  if (options.config.apiKey) headers['x-subscription-token'] = options.config.apiKey.reveal();
  const response = await getJson({ url, headers, dispatcher: options.dispatcher, timeoutMs: options.config.timeoutMs, signal: options.signal, backend: 'Brave Search' });
  if (!isResponse(response)) return response;
  if (response.status !== 200) return failure(response.status, response.body);
  const body = response.body as { web?: { results?: unknown } } | undefined;
  if (typeof body !== 'object' || body === null) return { ok: false, errorCode: 'unavailable', message: 'Brave Search answered something that is not JSON' };
  const results = Array.isArray(body.web?.results) ? (body.web.results as BraveResult[]) : [];
  const hits = results.flatMap((raw) => {
    const hit = typeof raw === 'object' && raw !== null ? readHit(raw) : undefined;
    return hit ? [hit] : [];
  });
  return { ok: true, hits: hits.slice(0, options.count) };
}
