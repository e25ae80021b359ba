/**
 * Anthropic's message threads live in one account: a `continue` turn (`thread.previous_message_id`, the id of
 * the thread's last answer) sent with another key is answered `thread_not_found`, and the client's SDK then
 * replays the whole conversation. A continue turn carries only the new messages, so the session's sticky key
 * (a hash of how the conversation starts) does not find it: each answered thread turn pins the id of its answer
 * to the provider and credential that answered, and the continue naming that id is tried there only.
 * A gateway shared key's account holds every tenant's threads: a continue without a pin for the caller (one
 * older than the thread pin's lifetime, or an id another tenant's thread gave) is tried on the caller's own
 * Anthropic-format keys only, whose accounts hold the caller's threads alone.
 * @see sticky-sessions.ts for the store and the pins' lifetimes
 */
import { hash } from 'node:crypto';
import type { ContentBlockParam, MessageParam, MessageRequest, ToolResultBlockParam } from '#src/api-types.ts';
import type { AttemptCredential, StickyPin } from '#src/routing/plan-types.ts';
import type { StickyScope } from '#src/routing/sticky/pin-key.ts';
import { ThreadRejectedError } from '#src/thread-errors.ts';

interface ThreadParam {
  type?: unknown;
  previous_message_id?: unknown;
}

function threadOf(request: MessageRequest): ThreadParam | undefined {
  const thread = (request as { thread?: unknown }).thread;
  return typeof thread === 'object' && thread !== null ? (thread as ThreadParam) : undefined;
}

/** Whether the request creates or continues a thread, so that its answer's id is pinned. */
export function threadsRequest(request: MessageRequest): boolean {
  return threadOf(request) !== undefined;
}

/** The answer id a `continue` turn resumes from, or undefined for any other request. */
export function continuedMessageId(request: MessageRequest): string | undefined {
  const thread = threadOf(request);
  return thread?.type === 'continue' && typeof thread.previous_message_id === 'string' ? thread.previous_message_id : undefined;
}

/** A request's `thread` resuming from `messageId` (what a tool loop's later steps and a re-pointed continue send). */
export function threadContinuing(messageId: string): { type: 'continue'; previous_message_id: string } {
  return { type: 'continue', previous_message_id: messageId };
}

/**
 * The continue turn re-pointed at the upstream answer its pin names (a tool loop answers with its first step's
 * id; the upstream holds the conversation under its last step's), or the request unchanged.
 */
export function resumedAtPinnedAnswer<R extends MessageRequest>(request: R, pin: StickyPin | null): R {
  if (pin?.messageId === undefined || continuedMessageId(request) === pin.messageId) return request;
  return { ...request, thread: threadContinuing(pin.messageId) };
}

/**
 * The continue with the results of the gateway calls the thread's last upstream answer left unanswered (the
 * pin's `pendingResults`) at the start of its first user turn, before the client's own `tool_result` blocks
 * (Anthropic wants every result of the previous answer's calls at the start of the next user turn), or as a
 * user turn of their own when the continue starts otherwise; the request unchanged when there are none.
 */
export function answeringPendingCalls<R extends MessageRequest>(request: R, pin: StickyPin | null): R {
  const pending = pin?.pendingResults;
  if (pending === undefined || pending.length === 0 || continuedMessageId(request) === undefined) return request;
  return { ...request, messages: withPendingResults(request.messages, pending) };
}

/** `messages` with `results` at the start of the first user turn (see `answeringPendingCalls`). */
export function withPendingResults(messages: readonly MessageParam[], results: readonly ToolResultBlockParam[]): MessageParam[] {
  const [first, ...rest] = messages;
  if (first?.role !== 'user') return [{ role: 'user', content: results.slice() }, ...messages];
  const own = typeof first.content === 'string' ? [{ type: 'text', text: first.content } as ContentBlockParam] : (first.content as ContentBlockParam[]);
  return [{ ...first, content: [...results, ...own] }, ...rest];
}

/**
 * The pin-store key of a thread answer's id, scoped to the caller's account and workspace: tenants never share
 * pins, and neither do two workspaces of one account, whose continue through a shared key would otherwise
 * read the other workspace's conversation (the shared key's account holds both). The parts are hashed as one
 * JSON array, so no id can pass for another workspace's.
 */
export function threadPinKey(scope: StickyScope, messageId: string): string {
  return `${scope.accountId}:thread:${hash('sha256', JSON.stringify([scope.workspaceId, messageId]), 'hex')}`;
}

/** What an attempt says of its account: its provider and its key. */
export interface AccountOfAttempt {
  provider: { slug: string };
  credential: AttemptCredential;
}

function credentialIdOf(attempt: AccountOfAttempt): string | null {
  return attempt.credential.kind === 'byok' ? attempt.credential.credentialId : null;
}

/**
 * The attempts a continue turn may use: those of the pinned provider and credential, the account that holds
 * the thread (any other account would answer `thread_not_found`, a translated vendor `thread_unsupported_request`).
 * When the plan no longer has that account (its credential disabled or deleted, the provider filtered out for
 * this request), the answer is Anthropic's 404 `thread_not_found`, on which the SDK replays the conversation
 * under a new thread wherever the plan sends it.
 */
export function attemptsOnThreadAccount<A extends AccountOfAttempt>(attempts: readonly A[], pin: StickyPin): A[] {
  const kept = attempts.filter((attempt) => attempt.provider.slug === pin.provider && credentialIdOf(attempt) === pin.credentialId);
  if (kept.length > 0) return kept;
  throw new ThreadRejectedError({
    provider: pin.provider,
    status: 404,
    errorCode: 'thread_not_found',
    message: 'No thread found for previous_message_id: the account that holds the thread cannot serve this request.',
  });
}

/** What an attempt says of its account and of the wire format its provider speaks. */
export interface AccountAndFamilyOfAttempt {
  provider: { slug: string; family: string };
  credential: AttemptCredential;
}

/**
 * The attempts a continue turn without a pin for the caller may use: the caller's own BYOK credentials on
 * Anthropic-format providers. A shared key is left out, as its account holds every tenant's threads and would
 * continue (and so reveal) another tenant's conversation named by its id; a translated vendor holds no thread.
 * With none left, the answer is Anthropic's 404 `thread_not_found`, on which the SDK replays the conversation
 * under a new thread, routed as any request.
 */
export function attemptsOnCallersAccounts<A extends AccountAndFamilyOfAttempt>(attempts: readonly A[]): A[] {
  const kept = attempts.filter((attempt) => attempt.credential.kind === 'byok' && attempt.provider.family === 'anthropic');
  if (kept.length > 0) return kept;
  throw new ThreadRejectedError({
    provider: attempts[0]?.provider.slug ?? 'switchboard',
    status: 404,
    errorCode: 'thread_not_found',
    message: 'No thread found for previous_message_id.',
  });
}
