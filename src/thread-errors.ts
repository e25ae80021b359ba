/**
 * The failures of Anthropic's message threads (`thread` in a request), answered in Anthropic's codes
 * (`error.details.error_code`) because Anthropic SDKs recover from them by themselves: the tool runner, which
 * threads by default, resends the whole conversation without `thread`, or replays it under a new thread.
 * Kept apart from errors.ts, whose classes these extend.
 */
import { GatewayError, UnsupportedFeatureError } from '#src/errors.ts';
import { redact, withoutSecrets } from '#src/logger.ts';

/** Anthropic's codes for a thread turn that cannot be served as sent. */
export type ThreadErrorCode = 'thread_unsupported_request' | 'thread_not_found' | 'thread_already_continued' | 'thread_continue_in_flight' | 'thread_fingerprint_mismatch';

const THREAD_ERROR_CODES: ReadonlySet<string> = new Set<ThreadErrorCode>([
  'thread_unsupported_request',
  'thread_not_found',
  'thread_already_continued',
  'thread_continue_in_flight',
  'thread_fingerprint_mismatch',
]);

/** 400: the request has `thread` and the endpoint's vendor (reached by translation) cannot hold a thread. */
export class ThreadUnsupportedError extends UnsupportedFeatureError {
  readonly errorCode: ThreadErrorCode = 'thread_unsupported_request';
}

/**
 * An Anthropic-format upstream refused a thread turn (a thread it no longer holds, one continued already):
 * answered with its status, message and code. The thread lives with that upstream's account, so no other
 * attempt is made; the client's SDK replays the conversation.
 */
export class ThreadRejectedError extends GatewayError {
  readonly errorCode: ThreadErrorCode;
  readonly provider: string;

  constructor(options: { provider: string; status: number; errorCode: ThreadErrorCode; message: string }) {
    super(options.status, options.message);
    this.errorCode = options.errorCode;
    this.provider = options.provider;
  }
}

/** The thread code a failure is answered with, if it has one. */
export function threadErrorCodeOf(error: unknown): ThreadErrorCode | undefined {
  return error instanceof ThreadUnsupportedError || error instanceof ThreadRejectedError ? error.errorCode : undefined;
}

/**
 * The thread rejection in an Anthropic-format upstream's error answer (`error.details.error_code` one of the
 * thread codes, a 4xx), or undefined for any other answer. `message` is the upstream's own line, bounded and
 * redacted, without `secrets` (what the call was made with, `callSecrets`) should the upstream echo them.
 */
export function threadRejectionOf(provider: string, status: number, body: string, secrets: readonly string[] = []): ThreadRejectedError | undefined {
  if (status < 400 || status >= 500) return undefined;
  let parsed: { error?: { message?: unknown; details?: { error_code?: unknown } } };
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    return undefined;
  }
  const code = parsed?.error?.details?.error_code;
  if (typeof code !== 'string' || !THREAD_ERROR_CODES.has(code)) return undefined;
  const message = typeof parsed.error?.message === 'string' ? parsed.error.message : '';
  const said = redact(withoutSecrets(message, secrets)).slice(0, 500);
  return new ThreadRejectedError({ provider, status, errorCode: code as ThreadErrorCode, message: said || `${provider} refused the thread turn: ${code}` });
}
