/**
 * One attempt's adapter call, built from the request, the attempt (plain data from the planner), the request
 * context and the key revealed for it at call time. The same builder serves `/messages` and
 * `/messages/count_tokens`. Secrets are revealed here and nowhere earlier: a BYOK key through the vault
 * (decrypted in memory for this call only), the gateway's shared key and AWS key pair from the configuration.
 */
import type { AwsSettings } from '#src/catalog/catalog-types.ts';
import type { AttemptCall, ProviderKey } from '#src/providers/provider-adapter.ts';
import type { AwsSigningCredentials } from '#src/providers/ai-sdk/create-language-model.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import { isByok, type Attempt } from '#src/routing/attempt.ts';
import type { CredentialSource } from '#src/routing/plan-request.ts';

/** An adapter call carrying a request of type `R` (a message request, or a count_tokens request). */
export type AdapterCall<R> = Omit<AttemptCall, 'request'> & { request: R };

/** What a call takes from the request context. */
export type AttemptCallContext = Pick<MessagesRequestContext, 'forwardHeaders' | 'organizationHeaders' | 'signal'>;

/**
 * The key for an attempt: the caller's BYOK key, decrypted now (the vault throws `CredentialUnavailableError`
 * when the credential was deleted since planning), or the gateway's shared key; undefined when the provider
 * takes none (local servers, Bedrock signing with the configured key pair).
 */
export async function revealKey(attempt: Attempt, accountId: string, vault: Pick<CredentialSource, 'revealKey'>): Promise<ProviderKey | undefined> {
  if (attempt.credential.kind === 'byok') return vault.revealKey(accountId, attempt.credential.credentialId);
  return attempt.provider.sharedKey?.reveal();
}

/** The configured AWS key pair, revealed for the call about to sign with it; undefined when incomplete. */
function awsSigningCredentials(aws: Readonly<AwsSettings>): AwsSigningCredentials | undefined {
  const accessKeyId = aws.accessKeyId?.reveal();
  const secretAccessKey = aws.secretAccessKey?.reveal();
  if (!accessKeyId || !secretAccessKey) return undefined;
  const sessionToken = aws.sessionToken?.reveal();
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}), ...(aws.region ? { region: aws.region } : {}) };
}

/**
 * The adapter call of one attempt. A key naming its region (`{api_key, region}` of openai and fireworks)
 * sends the call to the provider's host for that region; without any key, a Bedrock provider signs with its
 * configured AWS key pair.
 */
export function attemptCall<R>(request: R, attempt: Attempt, context: AttemptCallContext, key: ProviderKey | undefined): AdapterCall<R> {
  const { provider } = attempt;
  const keyRegionUrl = typeof key === 'object' && provider.regionalKeys ? provider.regionalBaseUrls[key.region] : undefined;
  const awsCredentials = key === undefined && provider.aws ? awsSigningCredentials(provider.aws) : undefined;
  // The fields every call has in one literal, the optional ones assigned after it when present: conditional
  // spreads in the literal had V8 define each property after them with a runtime call, on the way to the
  // upstream call of every attempt (bench/JOURNAL.md, 2026-11-28 11:xx).
  const call: AdapterCall<R> = {
    request,
    provider: provider.slug,
    family: provider.family,
    baseUrl: keyRegionUrl ?? attempt.baseUrl,
    upstreamModel: attempt.upstreamModel,
    key,
    forwardHeaders: context.forwardHeaders,
    quirks: provider.quirks,
    signal: context.signal,
    imageInput: attempt.imageInput,
    pdfInput: attempt.pdfInput,
  };
  if (hasEntries(provider.headers)) call.providerHeaders = provider.headers;
  if (attempt.fast) call.fast = true;
  if (attempt.maxOutputTokens !== null) call.outputLimit = attempt.maxOutputTokens;
  if (awsCredentials) call.awsCredentials = awsCredentials;
  if (context.organizationHeaders && sendsOrganizationHeaders(attempt)) call.forwardHeaders = { ...context.forwardHeaders, ...context.organizationHeaders };
  return call;
}

/**
 * Whether the attempt may carry the client's `anthropic-workspace-id` and `anthropic-user-profile-id`: an
 * Anthropic-format call with the caller's own key, whose organization holds the Workspace and user profile
 * they name. The gateway's key may belong to another organization (a Workspace header sent with a key of one
 * Workspace must match it), and translated vendors have no such headers.
 * @see @anthropic-ai/sdk 1.14 `MessageCreateParams.workspace_id` and `user_profile_id` (resources/messages/messages.d.ts)
 */
function sendsOrganizationHeaders(attempt: Attempt): boolean {
  return attempt.provider.family === 'anthropic' && isByok(attempt);
}

// Whether a headers record has a header, without the array `Object.keys` makes.
function hasEntries(record: Readonly<Record<string, string>>): boolean {
  for (const _name in record) return true;
  return false;
}
