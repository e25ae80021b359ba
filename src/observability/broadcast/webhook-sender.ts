/**
 * Delivers generations to a webhook: one signed JSON POST per generation, retried with backoff until a 2xx
 * while the answer may change (post-json.ts, isRetryableStatus). A password in the endpoint (a receiver
 * behind a proxy asking for one) goes as Basic authentication (src/http/url-user-info.ts).
 */
import { userInfoAsBasic } from '#src/http/url-user-info.ts';
import type { ActiveDestination } from '#src/observability/destinations/active-destination.ts';
import type { BroadcastSettings } from '#src/observability/broadcast/broadcast-types.ts';
import { convertToWebhookEvent } from '#src/observability/broadcast/convert-to-webhook-event.ts';
import { deliverWithRetries, postJson } from '#src/observability/broadcast/post-json.ts';
import { SIGNATURE_HEADER, signWebhookBody } from '#src/observability/broadcast/webhook-signature.ts';
import { DeliveryFailedError, type Sender } from '#src/observability/broadcast/sender.ts';

/** Creates the sender of a webhook destination. */
export function createWebhookSender(destination: ActiveDestination, settings: BroadcastSettings): Sender {
  const secret = destination.secrets.signingSecret;
  if (!secret) throw new Error(`webhook destination ${destination.id} has no signing secret`);
  // The URL to post to and its Basic header, read from the endpoint once rather than per delivery.
  const call = userInfoAsBasic(destination.endpoint, {});
  return {
    batchSize: 1,
    async send(items, signals) {
      for (const item of items) {
        const body = JSON.stringify(convertToWebhookEvent(item, { includeContent: destination.includeContent, now: new Date() }));
        const result = await deliverWithRetries(
          () => postJson(call.url, body, { ...call.headers, [SIGNATURE_HEADER]: signWebhookBody(secret.reveal(), body, Math.floor(Date.now() / 1000)) }, settings.timeoutMs, settings.network.dispatcher()),
          settings,
          signals,
        );
        if (!result.ok) throw new DeliveryFailedError(`webhook delivery failed after ${result.attempts} attempts (${result.last})`);
      }
    },
    close: async () => {},
  };
}
