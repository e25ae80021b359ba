/**
 * A request's plugin list as the gateway runs it: the ids this gateway has, the defaults of the caller's
 * workspace and key merged under the request's own entries (per id), the rule that an id appears once, and
 * the entries that are enabled. Pure functions of plain data.
 * @see Plugin in openapi/components/schemas/plugins.yaml
 */
import type { Plugin } from '#src/api-types.ts';
import { BadRequestError } from '#src/errors.ts';

/** A plugin id. */
export type PluginId = Plugin['id'];

/** The settings of the plugin with this id. */
export type PluginOf<K extends PluginId> = Extract<Plugin, { id: K }>;

/** The enabled plugins of one request, by id. */
export type EnabledPlugins = { readonly [K in PluginId]?: PluginOf<K> };

/** Every id this gateway has, in the spec's order (the order messages list them in). */
export const KNOWN_PLUGIN_IDS: readonly PluginId[] = ['auto-router', 'response-healing', 'context-compression', 'file-parser', 'moderation', 'web-fetch', 'web'];

/** Default plugin lists from the configuration, per workspace id and per gateway key hash. */
export interface PluginDefaults {
  workspaces: ReadonlyMap<string, readonly Plugin[]>;
  keys: ReadonlyMap<string, readonly Plugin[]>;
}

/** No defaults at all. */
export const NO_PLUGIN_DEFAULTS: PluginDefaults = { workspaces: new Map(), keys: new Map() };

/** The caller a default list is looked up for. */
export interface PluginCaller {
  workspaceId: string;
  keyHash: string;
}

/** Whether the id is one this gateway has (the spec's validation already refuses others; this is for configuration). */
export function isKnownPluginId(id: unknown): id is PluginId {
  return typeof id === 'string' && (KNOWN_PLUGIN_IDS as readonly string[]).includes(id);
}

/** Throws a 400 naming both positions when an id appears twice in the request's list. */
export function assertUniquePluginIds(plugins: readonly Plugin[]): void {
  const seen = new Map<string, number>();
  plugins.forEach((plugin, index) => {
    const first = seen.get(plugin.id);
    if (first !== undefined) {
      const message = `the plugin ${plugin.id} is listed twice (plugins[${first}] and plugins[${index}])`;
      throw new BadRequestError(`plugins[${index}].id: ${message}`, { details: [{ path: `/body/plugins/${index}/id`, message }] });
    }
    seen.set(plugin.id, index);
  });
}

/**
 * The plugin list a request runs with: the workspace's defaults, replaced per id by the key's, replaced per id
 * by the request's own entries (an entry with `enabled: false` turns a default off). Returns the request's
 * own list (the same array) when no default applies. Throws a 400 when the request lists an id twice.
 */
export function effectivePluginList(requested: readonly Plugin[] | undefined, defaults: PluginDefaults, caller: PluginCaller): readonly Plugin[] {
  const own = requested ?? [];
  assertUniquePluginIds(own);
  const workspace = defaults.workspaces.get(caller.workspaceId);
  const key = defaults.keys.get(caller.keyHash);
  if (workspace === undefined && key === undefined) return own;
  const byId = new Map<string, Plugin>();
  for (const list of [workspace ?? [], key ?? [], own]) for (const plugin of list) byId.set(plugin.id, plugin);
  return [...byId.values()];
}

/** The enabled entries of a list, by id (`enabled` defaults to true). */
export function enabledPlugins(list: readonly Plugin[]): EnabledPlugins {
  const enabled: Partial<Record<PluginId, Plugin>> = {};
  for (const plugin of list) if (plugin.enabled !== false) enabled[plugin.id] = plugin;
  return enabled as EnabledPlugins;
}

/** Whether no plugin is enabled. */
export function noPluginEnabled(enabled: EnabledPlugins): boolean {
  for (const _ in enabled) return false;
  return true;
}
