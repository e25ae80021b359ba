/**
 * Which keys each operation accepts, read once from the bundled spec's `security` declarations and
 * `components.securitySchemes`, so that `x-api-key` on the operations Anthropic's API has (messages, models)
 * and Bearer everywhere are stated in the spec and nowhere else.
 */
import { readSpec } from '#src/http/bundled-spec.ts';
import type { AcceptedScheme } from '#src/http/presented-keys.ts';

type SecurityRequirement = Record<string, string[]>;

interface SchemeObject {
  type?: string;
  scheme?: string;
  in?: string;
  name?: string;
}

interface OperationObject {
  operationId?: string;
  security?: SecurityRequirement[];
}

interface SpecDocument {
  security?: SecurityRequirement[];
  paths?: Record<string, Record<string, OperationObject | unknown>>;
  components?: { securitySchemes?: Record<string, SchemeObject> };
}

/** The accepted schemes of every operation, by operationId. */
export interface SecurityModel {
  /** Every scheme name the spec defines: each needs a security handler. */
  schemeNames: readonly string[];
  /** The schemes an operation accepts, in the order its spec lists them (empty: no key needed). */
  acceptedBy(operation: { operationId?: string } | undefined): readonly AcceptedScheme[];
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const loaded = new Map<string, SecurityModel>();

function toAcceptedScheme(name: string, scheme: SchemeObject): AcceptedScheme {
  if (scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer') return { kind: 'bearer' };
  if (scheme.type === 'apiKey' && scheme.in === 'header' && scheme.name) return { kind: 'header', name: scheme.name.toLowerCase() };
  throw new Error(`security scheme ${name}: only http bearer and apiKey in a header are supported`);
}

/** Builds the model from a parsed spec; throws at start-up on a declaration the gateway cannot honour. */
export function buildSecurityModel(document: SpecDocument): SecurityModel {
  const schemes = new Map(Object.entries(document.components?.securitySchemes ?? {}).map(([name, scheme]) => [name, toAcceptedScheme(name, scheme)]));
  const byOperation = new Map<string, AcceptedScheme[]>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      const { operationId, security } = operation as OperationObject;
      if (!operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      const accepted = (security ?? document.security ?? []).map((requirement) => {
        const names = Object.keys(requirement);
        // A requirement naming two schemes means "both at once", which no gateway key needs.
        if (names.length > 1) throw new Error(`${operationId}: a security requirement combining ${names.join(' and ')} is not supported`);
        const scheme = names[0] === undefined ? undefined : schemes.get(names[0]);
        if (names[0] !== undefined && !scheme) throw new Error(`${operationId}: unknown security scheme ${names[0]}`);
        return scheme;
      });
      byOperation.set(operationId, accepted.filter((scheme) => scheme !== undefined));
    }
  }
  return {
    schemeNames: [...schemes.keys()],
    acceptedBy: (operation) => (operation?.operationId ? (byOperation.get(operation.operationId) ?? []) : []),
  };
}

/** Reads the model from a spec file, once per process. */
export function loadSecurityModel(specPath: string): SecurityModel {
  let model = loaded.get(specPath);
  if (!model) {
    model = buildSecurityModel(readSpec(specPath) as SpecDocument);
    loaded.set(specPath, model);
  }
  return model;
}
