/** The user_location mapping per search backend, as tables. */
import { describe, expect, it } from 'vitest';
import { braveLocation, readSearchLocation, searxngLanguage } from '#src/server-tools/web-search/search-location.ts';

describe('readSearchLocation', () => {
  it('keeps the non-empty fields, the country upper-cased', () => {
    expect(readSearchLocation({ type: 'approximate', city: ' Lyon ', region: '', country: 'fr', timezone: 'Europe/Paris' })).toEqual({ city: 'Lyon', country: 'FR', timezone: 'Europe/Paris' });
  });
  it.each([[null], [{ type: 'approximate' }], ['FR']])('gives nothing for %j', (value) => {
    expect(readSearchLocation(value)).toBeUndefined();
  });
});

describe('searxngLanguage', () => {
  it.each([
    ['DE', 'de-DE'],
    ['CH', 'de-CH'],
    ['US', 'en-US'],
    ['JP', 'ja-JP'],
    ['TW', 'zh-TW'],
  ])('%s gives %s', (country, language) => {
    expect(searxngLanguage({ country })).toBe(language);
  });
  it('is undefined without a country (city, region and timezone have no SearXNG parameter)', () => {
    expect(searxngLanguage({ city: 'Paris', timezone: 'Europe/Paris' })).toBeUndefined();
  });
});

describe('braveLocation', () => {
  it.each([
    ['JP', { country: 'JP', search_lang: 'jp' }],
    ['TW', { country: 'TW', search_lang: 'zh-hant' }],
    ['CN', { country: 'CN', search_lang: 'zh-hans' }],
    ['PT', { country: 'PT', search_lang: 'pt-pt' }],
    ['GB', { country: 'GB', search_lang: 'en-gb' }],
    ['IS', { search_lang: 'is' }],
    // Kenya is not in Brave's country list, nor Swahili in its languages: only the header says it.
    ['KE', {}],
  ])('%s gives the parameters Brave lists', (country, params) => {
    expect(braveLocation({ country }).params).toEqual(params);
  });
  it('sends the location headers, leaving out a name outside ASCII', () => {
    expect(braveLocation({ city: 'Zürich', region: 'ZH', country: 'CH', timezone: 'Europe/Zurich' }).headers).toEqual({
      'x-loc-country': 'CH',
      'x-loc-state-name': 'ZH',
      'x-loc-timezone': 'Europe/Zurich',
    });
  });
});
