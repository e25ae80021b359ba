/**
 * SearXNG's search API: `GET {base}/search?q=...&format=json` (the instance must list `json` under
 * `search.formats`, else it answers 403). The answer's `results[]` carry `url`, `title`, `content` (the
 * snippet) and sometimes `publishedDate`; `unresponsive_engines` lists engines that failed.
 * @see https://docs.searxng.org/dev/search_api.html
 */
import type { Dispatcher } from 'undici';
import type { WebSearchConfig } from '../server-tools-config.ts';
import { backendUrl, getJson, isResponse, plainSnippet, type SearchAnswer, type SearchHit } from './search-backend.ts';
import { searxngLanguage, type SearchLocation } from './search-location.ts';

interface SearxngResult {
  url?: unknown;
  title?: unknown;
  content?: unknown;
  publishedDate?: unknown;
}

interface SearxngBody {
  results?: unknown;
  unresponsive_engines?: unknown;
}

function reasonForStatus(status: number): string {
  if (status === 403) return 'SearXNG refused the JSON format (HTTP 403): enable json under search.formats in its settings.yml';
  return `SearXNG answered HTTP ${status}`;
}

function readHit(raw: SearxngResult): SearchHit | undefined {
  if (typeof raw.url !== 'string' || !/^https?:\/\//i.test(raw.url)) return undefined;
  return {
    url: raw.url,
    title: typeof raw.title === 'string' && raw.title.trim() !== '' ? plainSnippet(raw.title) : raw.url,
    snippet: typeof raw.content === 'string' ? plainSnippet(raw.content) : '',
    pageAge: typeof raw.publishedDate === 'string' && raw.publishedDate !== '' ? raw.publishedDate : null,
  };
}

/** Searches a SearXNG instance. */
export async function searchSearxng(options: { query: string; count: number; location?: SearchLocation | undefined; config: WebSearchConfig; dispatcher: Dispatcher; signal: AbortSignal }): Promise<SearchAnswer> {
  const url = backendUrl(options.config.baseUrl, 'search');
  url.searchParams.set('q', options.query);
  url.searchParams.set('format', 'json');
  const language = searxngLanguage(options.location);
  if (language) url.searchParams.set('language', language);
  const headers = Object.fromEntries(Object.entries(options.config.headers).map(([name, value]) => [name, value.reveal()]));
  const response = await getJson({ url, headers, dispatcher: options.dispatcher, timeoutMs: options.config.timeoutMs, signal: options.signal, backend: 'SearXNG' });
  if (!isResponse(response)) return response;
  if (response.status === 429) return { ok: false, errorCode: 'too_many_requests', message: 'SearXNG is rate limiting the gateway (HTTP 429)' };
  if (response.status !== 200) return { ok: false, errorCode: 'unavailable', message: reasonForStatus(response.status) };
  const body = response.body as SearxngBody | undefined;
  if (typeof body !== 'object' || body === null || !Array.isArray(body.results)) return { ok: false, errorCode: 'unavailable', message: 'SearXNG answered without a results list' };
  const seen = new Set<string>();
  const hits: SearchHit[] = [];
  for (const raw of body.results as SearxngResult[]) {
    const hit = typeof raw === 'object' && raw !== null ? readHit(raw) : undefined;
    if (!hit || seen.has(hit.url)) continue;
    seen.add(hit.url);
    hits.push(hit);
    if (hits.length === options.count) break;
  }
  const failed = Array.isArray(body.unresponsive_engines) ? (body.unresponsive_engines as unknown[]) : [];
  if (hits.length === 0 && failed.length > 0) {
    const names = failed.map((entry) => (Array.isArray(entry) ? entry.join(': ') : String(entry))).join(', ');
    return { ok: false, errorCode: 'unavailable', message: `every SearXNG engine failed (${names})` };
  }
  return { ok: true, hits };
}
