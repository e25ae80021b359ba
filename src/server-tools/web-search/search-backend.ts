/**
 * What every search backend answers, and the one HTTP call they share: a GET of the backend's JSON API
 * through the runtime's search client, under the configured time cap and the request's abort signal. Each
 * backend (searxng-backend.ts, brave-backend.ts) builds its request and reads its own wire format; a base
 * URL's user-info is sent as Basic authentication (src/http/url-user-info.ts).
 */
import { request, type Dispatcher } from 'undici';
import { userInfoAsBasic } from '#src/http/url-user-info.ts';

/** One search result, backend-neutral. */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
  /** When the page was published or changed, as the backend says (free text), or null. */
  pageAge: string | null;
}

/** A search backend's answer: results, or an Anthropic `web_search_tool_result_error` code and a reason. */
export type SearchAnswer =
  | { ok: true; hits: SearchHit[] }
  | { ok: false; errorCode: 'unavailable' | 'too_many_requests' | 'invalid_tool_input'; message: string };

/** An HTTP answer of a backend's JSON API. */
export interface BackendResponse {
  status: number;
  body: unknown;
  text: string;
}

const MAX_BODY_BYTES = 5 * 1024 * 1024;

/**
 * The URL of a backend API path under the configured base URL. The base's own path and query are kept (an
 * instance behind a reverse proxy at `/searx/`, a proxy's token in `?token=`), and a trailing slash on the base
 * does not double: URL resolution against `${base}/` dropped the query and wrote `//search` for `…/searx/`.
 */
export function backendUrl(baseUrl: string, path: string): URL {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${path}`;
  url.hash = '';
  return url;
}

/** GETs a backend URL; a network failure, timeout or oversized body resolves to an `unavailable` answer. */
export async function getJson(options: {
  url: URL;
  headers: Record<string, string>;
  dispatcher: Dispatcher;
  timeoutMs: number;
  signal: AbortSignal;
  backend: string;
}): Promise<BackendResponse | Extract<SearchAnswer, { ok: false }>> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  try {
    // A password in the base URL goes as Basic authentication: undici would send none of it.
    const call = userInfoAsBasic(options.url.href, options.headers);
    const response = await request(call.url, {
      method: 'GET',
      headers: { accept: 'application/json', ...call.headers },
      dispatcher: options.dispatcher,
      signal: AbortSignal.any([options.signal, timeout]),
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += (chunk as Buffer).byteLength;
      if (size > MAX_BODY_BYTES) {
        response.body.destroy();
        return { ok: false, errorCode: 'unavailable', message: `${options.backend} answered more than ${MAX_BODY_BYTES} bytes` };
      }
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.statusCode, body, text };
  } catch (error) {
    if (timeout.aborted && !options.signal.aborted) return { ok: false, errorCode: 'unavailable', message: `${options.backend} did not answer within ${options.timeoutMs} ms` };
    if (options.signal.aborted) return { ok: false, errorCode: 'unavailable', message: 'the search was cancelled' };
    const code = (error as { code?: unknown }).code;
    return { ok: false, errorCode: 'unavailable', message: `${options.backend} could not be reached (${typeof code === 'string' ? code : 'network error'})` };
  }
}

/** Whether `getJson` answered with an HTTP response rather than a failure. */
export function isResponse(value: BackendResponse | Extract<SearchAnswer, { ok: false }>): value is BackendResponse {
  return 'status' in value;
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Snippets arrive as HTML fragments (Brave marks matches with <strong>): plain text for the model. */
export function plainSnippet(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, entity: string) => {
      if (!entity.startsWith('#')) return ENTITIES[entity.toLowerCase()] ?? match;
      const code = entity[1] === 'x' || entity[1] === 'X' ? Number.parseInt(entity.slice(2), 16) : Number.parseInt(entity.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
    })
    .replace(/\s+/g, ' ')
    .trim();
}
