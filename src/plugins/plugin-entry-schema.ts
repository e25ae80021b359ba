/**
 * Checks a plugin entry written in the configuration file (`plugins.defaults`) against the spec's own `Plugin`
 * schema, so a default is written exactly as a request's entry and no rule is stated twice. The bundled spec
 * is read and the schema compiled on the first entry checked, never at start-up without defaults.
 * @see Plugin in openapi/components/schemas/plugins.yaml
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { Plugin } from '#src/api-types.ts';
import type { ErrorDetail } from '#src/errors.ts';
import { readSpec } from '#src/http/bundled-spec.ts';
import { pruneAlternatives } from '#src/http/validation-details.ts';
import { KNOWN_PLUGIN_IDS, isKnownPluginId } from '#src/plugins/plugin-list.ts';

const SPEC_ID = 'switchboard-spec';

let validatePlugin: ValidateFunction | undefined;

function pluginValidator(): ValidateFunction {
  if (validatePlugin) return validatePlugin;
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  ajv.addSchema({ ...readSpec(), $id: SPEC_ID });
  validatePlugin = ajv.compile({ $ref: `${SPEC_ID}#/components/schemas/Plugin` });
  return validatePlugin;
}

/** The problems of one entry, each with the path inside the entry (`/pdf/engine`, '' for the entry itself). */
export function pluginEntryProblems(entry: unknown): ErrorDetail[] {
  const id = typeof entry === 'object' && entry !== null ? (entry as { id?: unknown }).id : undefined;
  if (id === undefined) return [{ path: '', message: 'needs an id' }];
  if (!isKnownPluginId(id)) return [{ path: '/id', message: `is not a plugin this gateway has (${KNOWN_PLUGIN_IDS.join(', ')})` }];
  const validate = pluginValidator();
  if (validate(entry)) return [];
  const details = (validate.errors ?? []).map((error) => ({ path: error.instancePath, message: error.message ?? 'is invalid' }));
  return pruneAlternatives(details);
}

/** Whether the entry is a valid plugin entry. */
export function isPluginEntry(entry: unknown): entry is Plugin {
  return pluginEntryProblems(entry).length === 0;
}
