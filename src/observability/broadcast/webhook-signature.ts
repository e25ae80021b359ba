/**
 * The webhook signature: `X-Switchboard-Signature: t=<unix seconds>,v1=<hex>`, where `v1` is HMAC-SHA256
 * under the destination's signing secret of `<t>.<raw body>`. Binding the timestamp lets receivers refuse
 * replays; a new timestamp and signature are made for every delivery attempt.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The signature header's name. */
export const SIGNATURE_HEADER = 'x-switchboard-signature';

/** Signs a body at `timestampSeconds`. */
export function signWebhookBody(secret: string, body: string, timestampSeconds: number): string {
  const digest = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${digest}`;
}

/** Verifies a signature header (what a receiver does); false when it does not match or is older than `toleranceSeconds`. */
export function verifyWebhookSignature(secret: string, body: string, header: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const timestamp = Number(parts.t);
  if (!Number.isSafeInteger(timestamp) || typeof parts.v1 !== 'string' || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signWebhookBody(secret, body, timestamp).split('v1=')[1] ?? '', 'hex');
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
