/** The webhook signature: HMAC-SHA256 over `<t>.<body>`, verified as a receiver would. */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhookBody, verifyWebhookSignature } from '#src/observability/broadcast/webhook-signature.ts';

const SECRET = 'whsec_test_secret_0001';
const BODY = '{"type":"generation.completed","id":"gen_x"}';

describe('webhook signature', () => {
  it('is t=<seconds>,v1=<hex HMAC of "<t>.<body>">', () => {
    const expected = createHmac('sha256', SECRET).update(`1700000000.${BODY}`).digest('hex');
    expect(signWebhookBody(SECRET, BODY, 1_700_000_000)).toBe(`t=1700000000,v1=${expected}`);
  });

  it.each([
    ['the signed body, in time', SECRET, BODY, 1_700_000_100, true],
    ['another body', SECRET, `${BODY} `, 1_700_000_100, false],
    ['another secret', 'whsec_other_secret_0002', BODY, 1_700_000_100, false],
    ['too late', SECRET, BODY, 1_700_000_301, false],
  ])('verifies %s: %s', (_label, secret, body, now, valid) => {
    expect(verifyWebhookSignature(secret, body, signWebhookBody(SECRET, BODY, 1_700_000_000), now)).toBe(valid);
  });

  it('refuses a malformed header', () => {
    expect(verifyWebhookSignature(SECRET, BODY, 'v1=abc', 1_700_000_000)).toBe(false);
    expect(verifyWebhookSignature(SECRET, BODY, 't=1700000000,v1=zz', 1_700_000_000)).toBe(false);
  });
});
