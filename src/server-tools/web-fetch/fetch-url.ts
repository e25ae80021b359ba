/**
 * Fetches one URL for `gateway:web_fetch` within its limits: http and https only, the request's domain rules,
 * redirects followed by hand (each hop re-checked, at most `maxRedirects`), one time cap over every hop and
 * the body, a size cap counted on the decoded bytes as they arrive, and the content-type allowlist checked
 * before the body is read. The address check itself is the guarded dispatcher's, made as each hop connects.
 */
import { fetch, type Dispatcher, type Response } from 'undici';
import { findBlockedAddress } from './guarded-dispatcher.ts';
import { checkAddress, normalizeHost, type CompiledAllowlist } from './address-policy.ts';
import { isIP } from 'node:net';

/** The limits one fetch runs under. */
export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  contentTypes: readonly string[];
  userAgent: string;
}

/** Which hosts the request allows (`allowed_domains`, `blocked_domains`). */
export interface DomainRules {
  allowedDomains: readonly string[] | null;
  blockedDomains: readonly string[];
}

/** A fetched body and what it is. */
export interface FetchedDocument {
  /** The URL that answered, after redirects. */
  url: string;
  /** The media type without parameters, lowercase. */
  mediaType: string;
  charset: string | undefined;
  body: Uint8Array;
}

/** Why a fetch gave nothing: an Anthropic `web_fetch_tool_result_error` code and a message for the model. */
export interface FetchFailure {
  errorCode: 'invalid_tool_input' | 'url_too_long' | 'url_not_allowed' | 'url_not_accessible' | 'unsupported_content_type' | 'content_too_large';
  message: string;
}

const MAX_URL_LENGTH = 2048;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function matchesDomain(host: string, domain: string): boolean {
  const wanted = normalizeHost(domain);
  return host === wanted || host.endsWith(`.${wanted}`);
}

/** Why this URL may not be requested at all, or undefined when it may (the address is checked on connect). */
export function checkUrl(url: URL, rules: DomainRules, allowlist: CompiledAllowlist): FetchFailure | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { errorCode: 'url_not_allowed', message: `only http and https URLs can be fetched, not ${url.protocol.slice(0, -1)}` };
  if (url.username !== '' || url.password !== '') return { errorCode: 'url_not_allowed', message: 'URLs with credentials cannot be fetched' };
  const host = normalizeHost(url.hostname);
  if (rules.blockedDomains.some((domain) => matchesDomain(host, domain))) return { errorCode: 'url_not_allowed', message: `${host} is a blocked domain for this request` };
  if (rules.allowedDomains && !rules.allowedDomains.some((domain) => matchesDomain(host, domain))) {
    return { errorCode: 'url_not_allowed', message: `${host} is not among this request's allowed domains` };
  }
  if (isIP(host) !== 0) {
    const verdict = checkAddress(host, allowlist);
    if (!verdict.allowed) return { errorCode: 'url_not_allowed', message: `${host} is ${verdict.reason}, which the gateway does not fetch` };
  }
  return undefined;
}

function parseUrl(text: string, base?: string): URL | undefined {
  try {
    return new URL(text, base);
  } catch {
    return undefined;
  }
}

function contentTypeOf(response: Response): { mediaType: string; charset: string | undefined } {
  const header = response.headers.get('content-type') ?? 'application/octet-stream';
  const [essence = '', ...parameters] = header.split(';');
  const charset = parameters.map((part) => part.trim().split('=')).find(([name]) => name?.toLowerCase() === 'charset')?.[1]?.replace(/"/g, '');
  return { mediaType: essence.trim().toLowerCase(), charset };
}

async function readCapped(response: Response, maxBytes: number): Promise<Uint8Array | undefined> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    return undefined;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body) {
    for await (const chunk of response.body) {
      total += chunk.byteLength;
      if (total > maxBytes) {
        await response.body.cancel().catch(() => undefined);
        return undefined;
      }
      chunks.push(chunk);
    }
  }
  return Buffer.concat(chunks);
}

/** Fetches `address` through `dispatcher`; never throws for what the URL or the network does. */
export async function fetchUrl(options: {
  address: string;
  dispatcher: Dispatcher;
  limits: FetchLimits;
  rules: DomainRules;
  allowlist: CompiledAllowlist;
  signal: AbortSignal;
}): Promise<{ ok: true; document: FetchedDocument } | { ok: false; failure: FetchFailure }> {
  const { limits } = options;
  if (options.address.length > MAX_URL_LENGTH) return { ok: false, failure: { errorCode: 'url_too_long', message: `the URL is longer than ${MAX_URL_LENGTH} characters` } };
  let url = parseUrl(options.address);
  if (!url) return { ok: false, failure: { errorCode: 'invalid_tool_input', message: `not a valid absolute URL: ${JSON.stringify(options.address.slice(0, 200))}` } };
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  let hop = 0;
  try {
    for (; ; hop += 1) {
      const refused = checkUrl(url, options.rules, options.allowlist);
      if (refused) return { ok: false, failure: hop === 0 ? refused : { ...refused, message: `redirected to ${url.href}: ${refused.message}` } };
      const response = await fetch(url, {
        dispatcher: options.dispatcher,
        redirect: 'manual',
        signal,
        headers: { 'user-agent': limits.userAgent, accept: limits.contentTypes.join(', ') },
      });
      const location = response.headers.get('location');
      if (REDIRECTS.has(response.status) && location !== null) {
        await response.body?.cancel();
        if (hop >= limits.maxRedirects) return { ok: false, failure: { errorCode: 'url_not_accessible', message: `too many redirects (more than ${limits.maxRedirects})` } };
        const next = parseUrl(location, url.href);
        if (!next) return { ok: false, failure: { errorCode: 'url_not_accessible', message: `redirected to an invalid URL: ${JSON.stringify(location.slice(0, 200))}` } };
        url = next;
        continue;
      }
      if (response.status >= 400) {
        await response.body?.cancel();
        return { ok: false, failure: { errorCode: 'url_not_accessible', message: `${url.href} answered HTTP ${response.status}` } };
      }
      const { mediaType, charset } = contentTypeOf(response);
      if (!limits.contentTypes.includes(mediaType)) {
        await response.body?.cancel();
        return { ok: false, failure: { errorCode: 'unsupported_content_type', message: `${mediaType} is not a content type the gateway fetches (${limits.contentTypes.join(', ')})` } };
      }
      const body = await readCapped(response, limits.maxBytes);
      if (!body) return { ok: false, failure: { errorCode: 'content_too_large', message: `the content is larger than ${limits.maxBytes} bytes` } };
      return { ok: true, document: { url: url.href, mediaType, charset, body } };
    }
  } catch (error) {
    const blocked = findBlockedAddress(error);
    if (blocked) {
      const message = `${blocked.message}, which the gateway does not fetch`;
      return { ok: false, failure: { errorCode: 'url_not_allowed', message: hop === 0 ? message : `redirected to ${url.href}: ${message}` } };
    }
    if (timeout.aborted && !options.signal.aborted) return { ok: false, failure: { errorCode: 'url_not_accessible', message: `timed out after ${limits.timeoutMs} ms` } };
    if (options.signal.aborted) return { ok: false, failure: { errorCode: 'url_not_accessible', message: 'the request was cancelled' } };
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const detail = typeof cause?.code === 'string' ? cause.code : error instanceof Error ? error.message : 'network error';
    return { ok: false, failure: { errorCode: 'url_not_accessible', message: `${url.href} could not be fetched (${detail})` } };
  }
}
