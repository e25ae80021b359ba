/**
 * The `observability:` section of the configuration file (`SWITCHBOARD_CONFIG`): broadcast destinations the
 * operator runs for every workspace (or the listed ones), with secrets from `${VAR}` like provider keys.
 * They are read with the catalog's readers, so a mistake stops start-up naming the file and the path.
 */
import { boolean, dictionary, INVALID, list, number, oneOf, record, string, url, type ConfigProblem, type Reader, type ReadType } from '#src/catalog/config-readers.ts';
import { SecretValue } from '#src/catalog/secret-value.ts';
import type { ActiveDestination } from '#src/observability/destinations/active-destination.ts';
import { checkFieldsOfKind, checkRequiredSecrets, checkUserInfo, DestinationRuleViolation } from '#src/observability/destinations/destination-rules.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function rate(): Reader<number> {
  return (value, path, problems) => {
    const read = number({ minimum: 0 })(value, path, problems);
    if (read !== INVALID && read > 1) {
      problems.push({ path, message: `must be a number from 0 to 1, got ${read}` });
      return INVALID;
    }
    return read;
  };
}

const fields = record(
  {
    name: string({ minLength: 1 }),
    kind: oneOf(['otlp', 'langfuse', 'webhook'] as const),
    endpoint: url(),
    protocol: oneOf(['http/protobuf', 'http/json'] as const),
    headers: dictionary(string({ secret: true, minLength: 1 }), { keyPattern: /^[A-Za-z0-9-]{1,64}$/, expectedKey: 'an HTTP header name' }),
    public_key: string({ minLength: 1 }),
    secret_key: string({ secret: true, minLength: 1 }),
    signing_secret: string({ secret: true, minLength: 16 }),
    sampling_rate: rate(),
    include_content: boolean(),
    workspaces: list(string({ pattern: UUID, expected: 'a workspace UUID' }), { minItems: 1, unique: true }),
  },
  ['name', 'kind', 'endpoint'],
);

/** One destination of the file, its kind's rules checked. */
const destination: Reader<ReadType<typeof fields>> = (value, path, problems) => {
  const read = fields(value, path, problems);
  if (read === INVALID) return INVALID;
  try {
    checkFieldsOfKind(read.kind, read);
    checkRequiredSecrets(read.kind, read);
    checkUserInfo(read.kind, read.endpoint, read.headers);
  } catch (error) {
    if (!(error instanceof DestinationRuleViolation)) throw error;
    problems.push({ path, message: error.reason });
    return INVALID;
  }
  return read;
};

/** Reads the `observability:` section. */
export const readObservabilityConfig = record({ destinations: list(destination) });

/** The `observability:` section after its shape was checked. */
export type ObservabilityFileConfig = ReadType<typeof readObservabilityConfig>;

/** A destination of the file and the workspaces it serves (null: every workspace). */
export interface FileDestination {
  destination: ActiveDestination;
  workspaces: readonly string[] | null;
}

/** Turns the section into destinations; names must be unique (they make the ids). */
export function fileDestinations(config: ObservabilityFileConfig | undefined, problems: ConfigProblem[] = []): FileDestination[] {
  const seen = new Set<string>();
  return (config?.destinations ?? []).flatMap((entry, index) => {
    if (seen.has(entry.name)) {
      problems.push({ path: `observability.destinations[${index}].name`, message: `repeats the name ${JSON.stringify(entry.name)}` });
      return [];
    }
    seen.add(entry.name);
    const destination: ActiveDestination = {
      id: `config:${entry.name}`,
      name: entry.name,
      kind: entry.kind,
      endpoint: entry.endpoint,
      protocol: entry.protocol ?? 'http/protobuf',
      publicKey: entry.public_key ?? null,
      secrets: {
        headers: Object.fromEntries(Object.entries(entry.headers ?? {}).map(([name, value]) => [name.toLowerCase(), new SecretValue(value)])),
        secretKey: entry.secret_key ? new SecretValue(entry.secret_key) : null,
        signingSecret: entry.signing_secret ? new SecretValue(entry.signing_secret) : null,
      },
      samplingRate: entry.sampling_rate ?? 1,
      includeContent: entry.include_content ?? false,
      revision: 'config',
    };
    return [{ destination, workspaces: entry.workspaces ?? null }];
  });
}
