/**
 * Loads the catalog at start-up: the built-in providers and models, extended or overridden by the YAML file
 * named by `configPath` (default: `SWITCHBOARD_CONFIG` from `env`), with `${VAR}` interpolated from `env`.
 * Everything is parsed, checked and indexed here; a bad file throws a `CatalogConfigError` naming the file, the
 * path inside it and what is wrong, never quoting a value read from the environment.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseDocument, type YAMLError } from 'yaml';
import { PROVIDER_PRESETS } from '#src/providers/presets/index.ts';
import { buildCatalog, type Catalog } from './build-catalog.ts';
import { CatalogConfigError } from './catalog-config-error.ts';
import type { ModelData, ProviderPreset } from './catalog-types.ts';
import { INVALID, type ConfigProblem } from './config-readers.ts';
import { readCatalogConfig, type CatalogConfig } from './config-schema.ts';
import { interpolateEnvironment, protectReferences, redactReferencedValues, referencedValues } from './interpolate-environment.ts';
import { mergeModels, mergeProviders } from './merge-config.ts';
import { BUILT_IN_MODELS } from './models/index.ts';
import { resolveServerToolsConfig } from '#src/server-tools/server-tools-config.ts';
import { fileDestinations } from '#src/observability/destinations/destination-config.ts';
import { resolvePluginsConfig } from '#src/plugins/plugins-config.ts';

/** Options of `loadCatalog`. */
export interface LoadCatalogOptions {
  /** The YAML file; when omitted, `env.SWITCHBOARD_CONFIG`; when neither, the built-in catalog alone. */
  configPath?: string | undefined;
  /** Where `${VAR}` references are looked up (and `SWITCHBOARD_CONFIG`). */
  env: NodeJS.ProcessEnv;
  /** Built-in data to start from; tests pass small fixtures. Default: the shipped presets and models. */
  builtIn?: { providers: readonly ProviderPreset[]; models: readonly ModelData[] };
}

/** A YAML syntax error by position and kind; the upstream message quotes the offending text, which may be a key. */
function describeYamlError(error: YAMLError): ConfigProblem {
  const position = error.linePos ? `line ${error.linePos[0].line}, column ${error.linePos[0].col}` : 'an unknown position';
  const kind = error.code === 'DUPLICATE_KEY' ? 'a key appears twice in the same mapping' : error.code.toLowerCase().replaceAll('_', ' ');
  return { path: '', message: `YAML syntax error at ${position}: ${kind}` };
}

/** Parses and checks the file's text; throws `CatalogConfigError` on any problem. */
export function parseCatalogConfig(text: string, file: string, env: NodeJS.ProcessEnv): CatalogConfig {
  const source = protectReferences(text);
  const document = parseDocument(source.text, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) throw new CatalogConfigError(file, document.errors.slice(0, 3).map(describeYamlError));
  const parsed: unknown = document.toJS({ maxAliasCount: 100 }) ?? {};
  const problems: ConfigProblem[] = [];
  const interpolated = interpolateEnvironment(parsed, source, env, '', problems);
  const config = readCatalogConfig(interpolated, '', problems);
  if (problems.length > 0 || config === INVALID) throw new CatalogConfigError(file, problems.length > 0 ? problems : [{ path: '', message: 'is not valid' }]);
  return config;
}

/** Builds the catalog from built-in data and an already checked configuration; throws on a problem. */
export function catalogFromConfig(config: CatalogConfig, file: string | null, builtIn: NonNullable<LoadCatalogOptions['builtIn']>): Catalog {
  const problems: ConfigProblem[] = [];
  const providers = mergeProviders(builtIn.providers, config, problems);
  const models = mergeModels(builtIn.models, config, providers, problems);
  const serverTools = resolveServerToolsConfig(config.server_tools, problems);
  const destinations = fileDestinations(config.observability, problems);
  const plugins = resolvePluginsConfig(
    config.plugins,
    {
      hasProvider: (slug) => providers.has(slug),
      hasModel: (slug) => models.some((model) => model.id === slug),
      serverTools: { webSearchMaxResults: serverTools.webSearch?.maxResults ?? null, webFetchEnabled: serverTools.webFetch.enabled },
    },
    problems,
  );
  if (problems.length > 0) throw new CatalogConfigError(file ?? '(built-in catalog)', problems);
  return buildCatalog(providers, models, file, { serverTools, fileDestinations: destinations, plugins });
}

/** Loads the immutable, pre-indexed catalog. Synchronous: it runs once, before the server listens. */
export function loadCatalog(options: LoadCatalogOptions): Catalog {
  const builtIn = options.builtIn ?? { providers: PROVIDER_PRESETS, models: BUILT_IN_MODELS };
  const configPath = options.configPath ?? (options.env.SWITCHBOARD_CONFIG || undefined);
  if (configPath === undefined) return catalogFromConfig({}, null, builtIn);
  const file = resolve(configPath);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'the file does not exist' : `the file cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
    throw new CatalogConfigError(file, [{ path: '', message: reason }], { cause: error });
  }
  try {
    return catalogFromConfig(parseCatalogConfig(text, file, options.env), file, builtIn);
  } catch (error) {
    if (!(error instanceof CatalogConfigError)) throw error;
    // Not chained as the cause: the original's message may quote the values.
    throw new CatalogConfigError(error.file, redactReferencedValues(error.problems, referencedValues(text, options.env)));
  }
}
