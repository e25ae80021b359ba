/**
 * The rules of a destination that its JSON schema cannot say: which fields belong to which kind, which
 * secrets each kind needs, and which must be given again when its endpoint moves. Pure functions over the
 * destination as it would be after a change; a violation names the field.
 */
import type { DestinationKind } from '#src/api-types.ts';
import { hasUserInfo, userInfoConflict } from '#src/http/url-user-info.ts';

/** A rule broken by a create or update; `reason` is shown to the client. */
export class DestinationRuleViolation extends Error {
  readonly reason: string;

  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}

/** The fields a request gave, by name. */
export type GivenFields = Partial<Record<'protocol' | 'headers' | 'public_key' | 'secret_key' | 'signing_secret', unknown>>;

const FIELDS_OF_KIND: Record<DestinationKind, readonly (keyof GivenFields)[]> = {
  otlp: ['protocol', 'headers'],
  langfuse: ['public_key', 'secret_key'],
  webhook: ['signing_secret'],
};

/** Every kind-specific field given must belong to `kind`. */
export function checkFieldsOfKind(kind: DestinationKind, given: GivenFields): void {
  for (const [otherKind, fields] of Object.entries(FIELDS_OF_KIND) as [DestinationKind, readonly (keyof GivenFields)[]][]) {
    if (otherKind === kind) continue;
    for (const field of fields) {
      if (given[field] !== undefined && !FIELDS_OF_KIND[kind].includes(field)) {
        throw new DestinationRuleViolation(`${field} applies to ${otherKind} destinations, not ${kind}`);
      }
    }
  }
}

/** A new destination must carry the secrets its kind needs. */
export function checkRequiredSecrets(kind: DestinationKind, given: GivenFields): void {
  switch (kind) {
    case 'otlp':
      return;
    case 'langfuse':
      if (given.public_key === undefined) throw new DestinationRuleViolation('public_key is required for a langfuse destination');
      if (given.secret_key === undefined) throw new DestinationRuleViolation('secret_key is required for a langfuse destination');
      return;
    case 'webhook':
      if (given.signing_secret === undefined) throw new DestinationRuleViolation('signing_secret is required for a webhook destination');
      return;
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown destination kind ${String(unreachable)}`);
    }
  }
}

/**
 * Header names are case-insensitive: two spellings of one name are a mistake. `content-length` is the
 * export's own: a configured one misstates every export's length, which the receiver refuses.
 */
export function checkHeaderNames(headers: Record<string, string> | undefined): void {
  if (!headers) return;
  const seen = new Set<string>();
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'content-length') throw new DestinationRuleViolation(`headers cannot set ${name}: each export sets its own`);
    if (seen.has(lower)) throw new DestinationRuleViolation(`headers names ${name} twice`);
    seen.add(lower);
  }
}

/**
 * A user name or password in the endpoint is sent as `Authorization: Basic` (src/http/url-user-info.ts): a
 * configured `authorization` header beside it, or a Langfuse destination (whose Basic authentication is its
 * keys'), would give the receiver two credentials. Names the fields, never the password.
 */
export function checkUserInfo(kind: DestinationKind, endpoint: string, headers: Record<string, string> | undefined): void {
  if (kind === 'langfuse' && hasUserInfo(endpoint)) {
    throw new DestinationRuleViolation('endpoint must not carry a user name or password for a langfuse destination: it authenticates with public_key and secret_key (sent as Basic authentication)');
  }
  const conflict = userInfoConflict(endpoint, Object.keys(headers ?? {}));
  if (conflict !== null) throw new DestinationRuleViolation(`headers.${conflict} conflicts with the user name and password in endpoint, which are sent as Authorization: Basic; give one or the other`);
}

// The stored secret each kind sends to its endpoint with every delivery. A webhook's signing secret is not
// sent: it signs, and a signature does not reveal it.
const SENT_CREDENTIAL: Partial<Record<DestinationKind, 'headers' | 'secret_key'>> = { otlp: 'headers', langfuse: 'secret_key' };

/**
 * A change that moves a destination's endpoint to another origin (scheme, host, port) must give again the
 * credential the kind sends there when one is stored. Kept, it would go to a server chosen by whoever made
 * the change, who can never read it through the API: the same reason a browser drops `Authorization` on a
 * redirect to another origin. `hasStoredCredential`: stored headers that are not empty, or a secret key.
 */
export function checkCredentialFollowsEndpoint(kind: DestinationKind, storedEndpoint: string, change: GivenFields & { endpoint?: string }, hasStoredCredential: boolean): void {
  const field = SENT_CREDENTIAL[kind];
  if (!field || !hasStoredCredential || change.endpoint === undefined || change[field] !== undefined) return;
  if (new URL(change.endpoint).origin === new URL(storedEndpoint).origin) return;
  const stored = field === 'headers' ? 'the stored headers are' : 'the stored secret_key is';
  throw new DestinationRuleViolation(`${field} must be given again to move endpoint to another origin: ${stored} not sent to a new origin`);
}
