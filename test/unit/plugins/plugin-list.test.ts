import { describe, expect, it } from 'vitest';
import type { Plugin } from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';
import { NO_PLUGIN_DEFAULTS, effectivePluginList, enabledPlugins, isKnownPluginId, noPluginEnabled, type PluginDefaults } from '#src/plugins/plugin-list.ts';

const caller = { workspaceId: 'ws-1', keyHash: 'hash-1' };
const defaults: PluginDefaults = {
  workspaces: new Map<string, Plugin[]>([['ws-1', [{ id: 'response-healing' }, { id: 'file-parser', pdf: { engine: 'pdf-text' } }]]]),
  keys: new Map<string, Plugin[]>([['hash-1', [{ id: 'file-parser' }, { id: 'context-compression' }]]]),
};

describe('effectivePluginList', () => {
  it('gives the request\'s own list, the same array, when no default applies', () => {
    const own: Plugin[] = [{ id: 'web' }];
    expect(effectivePluginList(own, NO_PLUGIN_DEFAULTS, caller)).toBe(own);
    expect(effectivePluginList(own, defaults, { workspaceId: 'other', keyHash: 'other' })).toBe(own);
    expect(effectivePluginList(undefined, NO_PLUGIN_DEFAULTS, caller)).toEqual([]);
  });

  it.each<[string, Plugin[] | undefined, Plugin[]]>([
    ['workspace defaults, replaced per id by the key\'s', undefined, [{ id: 'response-healing' }, { id: 'file-parser' }, { id: 'context-compression' }]],
    ['a request entry replacing a default per id', [{ id: 'response-healing', enabled: false }], [{ id: 'response-healing', enabled: false }, { id: 'file-parser' }, { id: 'context-compression' }]],
    ['a request entry for a plugin no default names', [{ id: 'web', max_results: 2 }], [{ id: 'response-healing' }, { id: 'file-parser' }, { id: 'context-compression' }, { id: 'web', max_results: 2 }]],
  ])('merges %s', (_case, own, expected) => {
    expect(effectivePluginList(own, defaults, caller)).toEqual(expected);
  });

  it('refuses a request listing an id twice, naming both positions', () => {
    const twice: Plugin[] = [{ id: 'web' }, { id: 'moderation' }, { id: 'web', enabled: false }];
    expect(() => effectivePluginList(twice, NO_PLUGIN_DEFAULTS, caller)).toThrow(BadRequestError);
    expect(() => effectivePluginList(twice, NO_PLUGIN_DEFAULTS, caller)).toThrow('plugins[2].id: the plugin web is listed twice (plugins[0] and plugins[2])');
  });
});

describe('enabledPlugins', () => {
  it('keeps the entries whose enabled is not false, by id', () => {
    const enabled = enabledPlugins([{ id: 'web', enabled: true }, { id: 'moderation', enabled: false }, { id: 'file-parser' }]);
    expect(Object.keys(enabled).sort()).toEqual(['file-parser', 'web']);
    expect(noPluginEnabled(enabled)).toBe(false);
    expect(noPluginEnabled(enabledPlugins([{ id: 'web', enabled: false }]))).toBe(true);
  });

  it.each([['web', true], ['auto-router', true], ['pdf-ocr', false], [7, false]])('knows whether %s is a plugin id', (id, known) => {
    expect(isKnownPluginId(id)).toBe(known);
  });
});
