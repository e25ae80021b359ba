import { describe, expect, it } from 'vitest';
import { CatalogConfigError } from '#src/catalog/catalog-config-error.ts';
import { loadCatalog } from '#src/catalog/load-catalog.ts';
import { DEFAULT_PLUGINS_CONFIG } from '#src/plugins/plugins-config.ts';
import { writeConfig } from '#test/unit/catalog/catalog-test-files.ts';

const WORKSPACE = '6f1c2a9e-3b7d-4c1e-9a2f-0d8e5b4c3a21';
const KEY = 'a'.repeat(64);

function load(yaml: string) {
  return loadCatalog({ configPath: writeConfig(yaml), env: {} });
}

function problems(yaml: string): string {
  try {
    load(yaml);
  } catch (error) {
    if (error instanceof CatalogConfigError) return error.message;
    throw error;
  }
  throw new Error('the file was accepted');
}

describe('the plugins section', () => {
  it('is optional: no defaults, no moderation model', () => {
    expect(load('providers: {}\n').plugins).toEqual(DEFAULT_PLUGINS_CONFIG);
  });

  it('reads defaults per workspace and per key, and the moderation model with its defaults', () => {
    const plugins = load(
      [
        'plugins:',
        '  moderation: { engine: model, model: openai/gpt-5 }',
        '  defaults:',
        `    workspaces: { "${WORKSPACE}": [{ id: web-fetch, max_results: 2 }] }`,
        `    keys: { "${KEY}": [{ id: response-healing, enabled: false }] }`,
        '',
      ].join('\n'),
    ).plugins;
    expect(plugins.moderation).toEqual({ engine: 'model', model: 'openai/gpt-5', provider: 'openai', failureMode: 'fail_closed', timeoutMs: 10_000 });
    expect(plugins.defaults.workspaces.get(WORKSPACE)).toEqual([{ id: 'web-fetch', max_results: 2 }]);
    expect(plugins.defaults.keys.get(KEY)).toEqual([{ id: 'response-healing', enabled: false }]);
    expect(plugins.hasDefaults).toBe(true);
  });

  it('accepts a disabled default for a plugin this gateway cannot run', () => {
    expect(load(`plugins:\n  defaults:\n    workspaces: { "${WORKSPACE}": [{ id: moderation, enabled: false }, { id: web, enabled: false }] }\n`).plugins.hasDefaults).toBe(true);
  });

  it.each([
    ['an unknown plugin id', `plugins:\n  defaults:\n    workspaces: { "${WORKSPACE}": [{ id: pdf-ocr }] }\n`, `plugins.defaults.workspaces.${WORKSPACE}[0].id: is not a plugin this gateway has (auto-router,`],
    ['a setting the plugin does not have', `plugins:\n  defaults:\n    keys: { "${KEY}": [{ id: file-parser, pdf: { engine: ocr } }] }\n`, `plugins.defaults.keys.${KEY}[0].pdf.engine: must be equal to one of the allowed values`],
    ['a plugin listed twice', `plugins:\n  defaults:\n    keys: { "${KEY}": [{ id: web }, { id: web }] }\n`, `plugins.defaults.keys.${KEY}[1].id: lists the plugin web a second time`],
    ['a workspace that is not a UUID', 'plugins:\n  defaults:\n    workspaces: { main: [] }\n', 'plugins.defaults.workspaces.main: is not a workspace id (a UUID)'],
    ['a key that is not a hash', 'plugins:\n  defaults:\n    keys: { sb-raw-key: [] }\n', 'plugins.defaults.keys.sb-raw-key: is not the SHA-256 hex of a gateway key'],
    ['a default moderation plugin without a moderation model', `plugins:\n  defaults:\n    workspaces: { "${WORKSPACE}": [{ id: response-healing }, { id: moderation }] }\n`, `plugins.defaults.workspaces.${WORKSPACE}[1]: enables the moderation plugin, but plugins.moderation names no moderation model`],
    ['a default web plugin without a search backend', `plugins:\n  defaults:\n    keys: { "${KEY}": [{ id: web }] }\n`, `plugins.defaults.keys.${KEY}[0]: enables the web plugin, but server_tools.web_search configures no search backend`],
    ['a default web-fetch plugin with web fetch disabled', `server_tools:\n  web_fetch: { enabled: false }\nplugins:\n  defaults:\n    keys: { "${KEY}": [{ id: web-fetch }] }\n`, `plugins.defaults.keys.${KEY}[0]: enables the web-fetch plugin, but server_tools.web_fetch.enabled is false`],
    ['a moderation model the catalog lacks', 'plugins:\n  moderation: { engine: model, model: acme/guard }\n', 'plugins.moderation.model: names no model of the catalog (acme/guard)'],
    ['a moderation provider the catalog lacks', 'plugins:\n  moderation: { engine: openai, provider: acme, model: omni-moderation-latest }\n', 'plugins.moderation.provider: names no enabled provider (acme)'],
    ['a moderation model without an engine', 'plugins:\n  moderation: { model: omni-moderation-latest }\n', 'plugins.moderation.engine: is required'],
    ['an unknown failure mode', 'plugins:\n  moderation: { engine: openai, model: m, failure_mode: retry }\n', 'plugins.moderation.failure_mode: must be one of fail_closed, fail_open, got "retry"'],
  ])('refuses %s, naming the path', (_case, yaml, message) => {
    expect(problems(yaml)).toContain(message);
  });
});
