/**
 * The plugins' configuration as they read it: the checked `plugins:` section with defaults filled in and its
 * references (the moderation model, the provider of OpenAI's moderation endpoint) checked against the merged
 * catalog. Built once at start-up; every field is documented in switchboard.example.yaml.
 */
import type { Plugin } from '#src/api-types.ts';
import type { ConfigProblem } from '#src/catalog/config-readers.ts';
import { NO_PLUGIN_DEFAULTS, type PluginDefaults } from '#src/plugins/plugin-list.ts';
import { pluginsPath, type MODERATION_ENGINES, type MODERATION_FAILURE_MODES, type PluginsSection } from '#src/plugins/plugins-config-schema.ts';

/** The moderation model of the `moderation` plugin. */
export interface ModerationConfig {
  /** `openai`: OpenAI's moderation endpoint; `model`: a catalog model asked to classify the input. */
  engine: (typeof MODERATION_ENGINES)[number];
  /** A moderation model id (`omni-moderation-latest`) for `openai`; a catalog model slug for `model`. */
  model: string;
  /** For `openai`: the catalog provider whose base URL and shared key reach the moderation endpoint. */
  provider: string;
  failureMode: (typeof MODERATION_FAILURE_MODES)[number];
  timeoutMs: number;
}

/** Everything the plugins read from configuration. */
export interface PluginsConfig {
  defaults: PluginDefaults;
  /** Whether any default list exists: without one, a request without `plugins` costs one check. */
  hasDefaults: boolean;
  /** Null when not configured: the `moderation` plugin is then a 400. */
  moderation: ModerationConfig | null;
}

/** Defaults, documented in switchboard.example.yaml. */
export const PLUGIN_CONFIG_DEFAULTS = { moderationProvider: 'openai', failureMode: 'fail_closed', timeoutMs: 10_000 } as const;

/** What the section's references are checked against: the merged catalog and the gateway's tools. */
export interface PluginsConfigContext {
  hasProvider(slug: string): boolean;
  hasModel(slug: string): boolean;
  /** The `server_tools` the web plugins run on: the search backend's ceiling (null without one), web fetch on. */
  serverTools?: { webSearchMaxResults: number | null; webFetchEnabled: boolean };
}

/**
 * Why an enabled default cannot run on this gateway, or null. A request refuses such a plugin with a 400; as a
 * default it would refuse every request of its workspace or key, for a plugin the client never asked for.
 */
function unavailableDefault(plugin: Plugin, hasModeration: boolean, tools: PluginsConfigContext['serverTools']): string | null {
  if (plugin.enabled === false) return null;
  if (plugin.id === 'moderation' && !hasModeration) return 'enables the moderation plugin, but plugins.moderation names no moderation model';
  if (plugin.id === 'web' && tools && tools.webSearchMaxResults === null) return 'enables the web plugin, but server_tools.web_search configures no search backend';
  if (plugin.id === 'web' && tools && tools.webSearchMaxResults !== null && plugin.max_results !== undefined && plugin.max_results > tools.webSearchMaxResults) {
    return `asks the web plugin for ${plugin.max_results} results, more than server_tools.web_search.max_results (${tools.webSearchMaxResults})`;
  }
  if (plugin.id === 'web-fetch' && tools && !tools.webFetchEnabled) return 'enables the web-fetch plugin, but server_tools.web_fetch.enabled is false';
  return null;
}

function checkDefaults(kind: 'workspaces' | 'keys', lists: ReadonlyMap<string, readonly Plugin[]>, hasModeration: boolean, context: PluginsConfigContext, problems: ConfigProblem[]): void {
  for (const [owner, list] of lists) {
    list.forEach((plugin, index) => {
      const problem = unavailableDefault(plugin, hasModeration, context.serverTools);
      if (problem) problems.push({ path: `${pluginsPath('defaults', kind, owner)}[${index}]`, message: problem });
    });
  }
}

function resolveModeration(section: NonNullable<PluginsSection['moderation']>, context: PluginsConfigContext, problems: ConfigProblem[]): ModerationConfig {
  const provider = section.provider ?? PLUGIN_CONFIG_DEFAULTS.moderationProvider;
  if (section.engine === 'openai' && !context.hasProvider(provider)) {
    problems.push({ path: pluginsPath('moderation', 'provider'), message: `names no enabled provider (${provider}); OpenAI's moderation endpoint is reached through a provider's base URL and key` });
  }
  if (section.engine === 'model' && section.provider !== undefined) {
    problems.push({ path: pluginsPath('moderation', 'provider'), message: 'is only used by the openai engine (the model engine routes to the model like any request)' });
  }
  if (section.engine === 'model' && !context.hasModel(section.model)) {
    problems.push({ path: pluginsPath('moderation', 'model'), message: `names no model of the catalog (${section.model})` });
  }
  return Object.freeze({
    engine: section.engine,
    model: section.model,
    provider,
    failureMode: section.failure_mode ?? PLUGIN_CONFIG_DEFAULTS.failureMode,
    timeoutMs: section.timeout_ms ?? PLUGIN_CONFIG_DEFAULTS.timeoutMs,
  });
}

/** Fills in defaults and checks the section's references; problems are reported with their path in the file. */
export function resolvePluginsConfig(section: PluginsSection | undefined, context: PluginsConfigContext, problems: ConfigProblem[]): PluginsConfig {
  const workspaces = new Map(Object.entries(section?.defaults?.workspaces ?? {}).map(([id, list]) => [id, Object.freeze(list)]));
  const keys = new Map(Object.entries(section?.defaults?.keys ?? {}).map(([hash, list]) => [hash, Object.freeze(list)]));
  const hasDefaults = workspaces.size > 0 || keys.size > 0;
  checkDefaults('workspaces', workspaces, section?.moderation !== undefined, context, problems);
  checkDefaults('keys', keys, section?.moderation !== undefined, context, problems);
  return Object.freeze({
    defaults: hasDefaults ? { workspaces, keys } : NO_PLUGIN_DEFAULTS,
    hasDefaults,
    moderation: section?.moderation ? resolveModeration(section.moderation, context, problems) : null,
  });
}

/** The configuration with no `plugins:` section: no defaults, no moderation model. */
export const DEFAULT_PLUGINS_CONFIG: PluginsConfig = Object.freeze({ defaults: NO_PLUGIN_DEFAULTS, hasDefaults: false, moderation: null });
