/**
 * Reasons for request-validator complaints whose own words ("must be string") do not tell a client what to
 * send instead. A complaint listed here makes the 400's message `Invalid request parameters: <reason>`; the
 * validator's details stay as they are.
 */
import type { ErrorDetail } from '#src/errors.ts';
import { KEY_MUST_BE_STRING } from '#src/byok/parse-provider-key.ts';

interface FieldReason {
  path: string;
  message: string;
  reason: string;
}

// `/body/key` is only a request field of the BYOK create and update bodies: a JSON object there is the old
// region-bound form, now sent as JSON text inside the string.
const FIELD_REASONS: readonly FieldReason[] = [{ path: '/body/key', message: 'must be string', reason: KEY_MUST_BE_STRING }];

/** The reason for the first listed complaint among the details, or null when none is listed. */
export function validationReason(details: readonly ErrorDetail[]): string | null {
  for (const detail of details) {
    const known = FIELD_REASONS.find((entry) => entry.path === detail.path && entry.message === detail.message);
    if (known) return known.reason;
  }
  return null;
}
