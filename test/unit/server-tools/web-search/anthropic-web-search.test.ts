/** Anthropic's web search tool as the gateway runs it: the entry rewritten, the domain rules, the scoped query. */
import { describe, expect, it } from 'vitest';
import { ANTHROPIC_ENTRY, hasAnthropicWebSearch, hitsWithinDomains, scopedQuery, withAnthropicSearchAsGateway } from '#src/server-tools/web-search/anthropic-web-search.ts';

const hit = (url: string) => ({ url, title: url, snippet: '', pageAge: null });
const CLIENT_TOOL = { name: 'lookup', input_schema: { type: 'object' } } as never;

describe('withAnthropicSearchAsGateway', () => {
  it.each([
    ['settings and user_location kept', { type: 'web_search_20250305', name: 'web_search', max_uses: 8, allowed_domains: ['a.example'], user_location: { type: 'approximate', city: 'Paris' } }, { type: 'gateway:web_search', name: 'web_search', max_uses: 8, allowed_domains: ['a.example'], user_location: { type: 'approximate', city: 'Paris' } }],
    ['a later version, its own name, cache_control', { type: 'web_search_20260209', name: 'search', blocked_domains: ['b.example'], cache_control: { type: 'ephemeral' } }, { type: 'gateway:web_search', name: 'search', blocked_domains: ['b.example'], cache_control: { type: 'ephemeral' } }],
    ['null settings left out', { type: 'web_search_20250305', name: 'web_search', max_uses: null, allowed_domains: null }, { type: 'gateway:web_search', name: 'web_search' }],
  ])('%s', (_name, entry, expected) => {
    // The entry as sent rides along, for an Anthropic-format attempt of the same plan.
    expect(withAnthropicSearchAsGateway([CLIENT_TOOL, entry as never])).toEqual([CLIENT_TOOL, { ...expected, [ANTHROPIC_ENTRY]: entry }]);
  });

  it('finds the tool only among versioned web search entries', () => {
    expect(hasAnthropicWebSearch(undefined)).toBe(false);
    expect(hasAnthropicWebSearch([CLIENT_TOOL, { type: 'gateway:web_search' } as never, { type: 'web_fetch_20250910', name: 'web_fetch' } as never])).toBe(false);
    expect(hasAnthropicWebSearch([CLIENT_TOOL, { type: 'web_search_20250305', name: 'web_search' } as never])).toBe(true);
  });
});

describe('hitsWithinDomains', () => {
  const hits = [hit('https://www.a.example/x'), hit('https://docs.a.example/y'), hit('https://b.example/z'), hit('https://nota.example/w')];
  it.each([
    ['no rules: every hit', null, [], hits.map((entry) => entry.url)],
    ['allowed: the domain and its subdomains', ['a.example'], [], ['https://www.a.example/x', 'https://docs.a.example/y']],
    ['blocked: dropped, subdomains too', null, ['a.example'], ['https://b.example/z', 'https://nota.example/w']],
  ])('%s', (_name, allowed, blocked, urls) => {
    expect(hitsWithinDomains(hits, allowed, blocked).map((entry) => entry.url)).toEqual(urls);
  });
});

describe('scopedQuery', () => {
  it.each([
    [null, 'tides'],
    [['a.example'], 'tides site:a.example'],
    [['a.example', 'b.example'], 'tides (site:a.example OR site:b.example)'],
  ])('allowed %j', (allowed, query) => {
    expect(scopedQuery('tides', allowed)).toBe(query);
  });
});
