/**
 * The `plugins:` section of the configuration file (`SWITCHBOARD_CONFIG`), checked field by field with the
 * catalog's readers: the moderation model of the `moderation` plugin, and default plugin lists per workspace
 * and per gateway key, whose entries are checked against the spec's own `Plugin` schema. Rules across
 * sections (the moderation model or provider exists) are checked when the section is resolved.
 */
import type { Plugin } from '#src/api-types.ts';
import { INVALID, childPath, dictionary, list, number, oneOf, record, string, type Reader, type ReadType } from '#src/catalog/config-readers.ts';
import { pluginEntryProblems } from '#src/plugins/plugin-entry-schema.ts';

/** How the `moderation` plugin screens input. */
export const MODERATION_ENGINES = ['openai', 'model'] as const;

/** What a screening failure does. */
export const MODERATION_FAILURE_MODES = ['fail_closed', 'fail_open'] as const;

const WORKSPACE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY_HASH = /^[a-f0-9]{64}$/;

/** One plugin entry, written as in a request; an id twice in one list is a problem, as in a request. */
const pluginEntry: Reader<Plugin> = (value, path, problems) => {
  const found = pluginEntryProblems(value);
  if (found.length === 0) return value as Plugin;
  for (const problem of found) problems.push({ path: `${path}${(problem.path ?? '').replaceAll('/', '.')}`, message: problem.message });
  return INVALID;
};

const pluginList: Reader<Plugin[]> = (value, path, problems) => {
  const entries = list(pluginEntry)(value, path, problems);
  if (entries === INVALID) return INVALID;
  const ids = entries.map((entry) => entry.id);
  const twice = ids.findIndex((id, index) => ids.indexOf(id) !== index);
  if (twice < 0) return entries;
  problems.push({ path: `${path}[${twice}].id`, message: `lists the plugin ${ids[twice]} a second time` });
  return INVALID;
};

const moderation = record(
  {
    engine: oneOf(MODERATION_ENGINES),
    model: string({ minLength: 1 }),
    provider: string({ pattern: /^[a-z0-9][a-z0-9-]*$/, expected: 'a provider slug' }),
    failure_mode: oneOf(MODERATION_FAILURE_MODES),
    timeout_ms: number({ minimum: 1, integer: true }),
  },
  ['engine', 'model'],
);

const defaults = record({
  workspaces: dictionary(pluginList, { keyPattern: WORKSPACE_ID, expectedKey: 'a workspace id (a UUID)' }),
  keys: dictionary(pluginList, { keyPattern: KEY_HASH, expectedKey: 'the SHA-256 hex of a gateway key (64 lowercase hex characters)' }),
});

/** Reads the `plugins:` section. */
export const readPluginsSection = record({ moderation, defaults });

/** The `plugins:` section after its shape was checked. */
export type PluginsSection = ReadType<typeof readPluginsSection>;

/** The path of a field of the section, for problems found when it is resolved. */
export function pluginsPath(...keys: string[]): string {
  return keys.reduce(childPath, 'plugins');
}
