/**
 * Checks a plugin entry written in the configuration file (`plugins.defaults`) against the spec's own `Plugin`
 * schema, so a default is written exactly as a request's entry and no rule is stated twice. The bundled spec
 * is read and the schema compiled on the first entry checked, never at start-up without defaults.
 * @see Plugin in openapi/components/schemas/plugins.yaml
 */
import type { Plugin } from '#src/api-types.ts';
import type { ErrorDetail } from '#src/errors.ts';
import { specValidator, toErrorDetails } from '#src/http/spec-schemas.ts';
import { pruneAlternatives } from '#src/http/validation-details.ts';
import { chosenBranchesOf } from '#src/http/chosen-branch.ts';
import { KNOWN_PLUGIN_IDS, isKnownPluginId } from '#src/plugins/plugin-list.ts';

const PLUGIN_SCHEMA = ['components', 'schemas', 'Plugin'];

/**
 * The problems of one entry, each with the path inside the entry (`/pdf/engine`, '' for the entry itself),
 * told about the plugin its id names rather than every plugin.
 */
export function pluginEntryProblems(entry: unknown): ErrorDetail[] {
  const id = typeof entry === 'object' && entry !== null ? (entry as { id?: unknown }).id : undefined;
  if (id === undefined) return [{ path: '', message: 'needs an id' }];
  if (!isKnownPluginId(id)) return [{ path: '/id', message: `is not a plugin this gateway has (${KNOWN_PLUGIN_IDS.join(', ')})` }];
  const validate = specValidator('/components/schemas/Plugin');
  if (validate(entry)) return [];
  const details = toErrorDetails(validate.errors ?? []);
  return pruneAlternatives(details, chosenBranchesOf(details, PLUGIN_SCHEMA, entry));
}

/** Whether the entry is a valid plugin entry. */
export function isPluginEntry(entry: unknown): entry is Plugin {
  return pluginEntryProblems(entry).length === 0;
}
