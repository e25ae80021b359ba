/**
 * The `user_location` of Anthropic's web search tool (`{type: "approximate", city, region, country,
 * timezone}`) read into plain data, and mapped to what each search backend can express. Neither backend takes
 * every field: what one cannot say is left out rather than guessed.
 *
 * - Brave Search: `country` (only a country Brave lists, else Brave answers 422) and `search_lang` (the
 *   country's main language in Brave's codes) as query parameters; the city, region, country and timezone as
 *   its location headers (`X-Loc-City`, `X-Loc-State-Name`, `X-Loc-Country`, `X-Loc-Timezone`), sent only when
 *   plain ASCII, as HTTP header values must be. `ui_lang` is not sent: it changes only the answer's interface
 *   strings, which the gateway does not read.
 * - SearXNG: `language` as `<language>-<COUNTRY>` (e.g. `de-CH`), its engines' region and language in one
 *   parameter. The city, region and timezone have no SearXNG parameter and are ignored.
 *
 * A country's main language is CLDR's likely-subtags guess (`Intl.Locale#maximize`), the table browsers use.
 * @see https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool
 * @see https://api-dashboard.search.brave.com/app/documentation/web-search/request-headers
 * @see https://docs.searxng.org/dev/search_api.html
 */

/** A web search's approximate user location, as the client gave it (every field optional). */
export interface SearchLocation {
  city?: string;
  region?: string;
  /** ISO 3166-1 alpha-2, upper case. */
  country?: string;
  /** An IANA time zone name. */
  timezone?: string;
}

const TEXT_FIELDS = ['city', 'region', 'timezone'] as const;

/** Whether a value is a two-letter ISO 3166-1 country code (any case). */
export function isCountryCode(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z]{2}$/.test(value);
}

/**
 * The location of a tool entry's `user_location`, or undefined when it gives none. The country is upper-cased;
 * a country that is not two letters is for the caller to refuse (`isCountryCode`) before this is called.
 */
export function readSearchLocation(value: unknown): SearchLocation | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const raw = value as Record<string, unknown>;
  const location: SearchLocation = {};
  for (const field of TEXT_FIELDS) {
    const text = raw[field];
    if (typeof text === 'string' && text.trim() !== '') location[field] = text.trim();
  }
  if (isCountryCode(raw.country)) location.country = raw.country.toUpperCase();
  return Object.keys(location).length > 0 ? location : undefined;
}

/** The country's likely main language and script (`DE` → `de`, `TW` → `zh` `Hant`), or undefined. */
function likelyLanguage(country: string): { language: string; script: string | undefined } | undefined {
  try {
    const locale = new Intl.Locale('und', { region: country }).maximize();
    return locale.language === 'und' ? undefined : { language: locale.language, script: locale.script };
  } catch {
    return undefined;
  }
}

/** SearXNG's `language` for a location: `<language>-<COUNTRY>`, or undefined without a country. */
export function searxngLanguage(location: SearchLocation | undefined): string | undefined {
  const country = location?.country;
  if (!country) return undefined;
  const likely = likelyLanguage(country);
  return likely ? `${likely.language}-${country}` : undefined;
}

/**
 * The countries Brave's `country` parameter accepts (its documented list; `ALL` left out, as no location
 * names it). This list and the `search_lang` codes below were checked (2026-11-28) against Brave's own
 * enumerations of the Web Search API's parameters in its MCP server (github.com/brave/brave-search-mcp-server,
 * src/tools/web/params.ts) and its API reference (api-dashboard.search.brave.com/api-reference/web/search/get):
 * the same 36 countries and 50 language codes.
 */
const BRAVE_COUNTRIES: ReadonlySet<string> = new Set(
  'AR AU AT BE BR CA CL DK FI FR DE HK IN ID IT JP KR MY MX NL NZ NO CN PL PT PH RU SA ZA ES SE CH TW TR GB US'.split(' '),
);

/** Brave's `search_lang` codes that are a plain ISO 639-1 language. */
const BRAVE_PLAIN_LANGUAGES: ReadonlySet<string> = new Set(
  'ar eu bn bg ca hr cs da nl en et fi fr gl de gu he hi hu is it kn ko lv lt ms ml mr nb pl pa ro ru sr sk sl es sv ta te th tr uk vi'.split(' '),
);

/** Brave's own code for a language, where it differs from ISO 639-1 (with the country or script deciding). */
function braveLanguage(language: string, script: string | undefined, country: string): string | undefined {
  if (language === 'ja') return 'jp';
  if (language === 'zh') return script === 'Hant' ? 'zh-hant' : 'zh-hans';
  if (language === 'pt') return country === 'BR' ? 'pt-br' : 'pt-pt';
  if (language === 'en' && country === 'GB') return 'en-gb';
  return BRAVE_PLAIN_LANGUAGES.has(language) ? language : undefined;
}

// HTTP header values are bytes: a name outside printable ASCII (Zürich, 東京) is left out rather than mangled.
function headerValue(text: string | undefined): string | undefined {
  return text !== undefined && /^[\x20-\x7e]+$/.test(text) ? text : undefined;
}

/** Brave's query parameters and location headers for a location (both empty without one). */
export function braveLocation(location: SearchLocation | undefined): { params: Record<string, string>; headers: Record<string, string> } {
  const params: Record<string, string> = {};
  const headers: Record<string, string> = {};
  if (!location) return { params, headers };
  const { country } = location;
  if (country) {
    if (BRAVE_COUNTRIES.has(country)) params.country = country;
    const likely = likelyLanguage(country);
    const language = likely ? braveLanguage(likely.language, likely.script, country) : undefined;
    if (language) params.search_lang = language;
    headers['x-loc-country'] = country;
  }
  const named: [string, string | undefined][] = [
    ['x-loc-city', location.city],
    ['x-loc-state-name', location.region],
    ['x-loc-timezone', location.timezone],
  ];
  for (const [name, text] of named) {
    const value = headerValue(text);
    if (value !== undefined) headers[name] = value;
  }
  return { params, headers };
}
