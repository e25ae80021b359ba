/**
 * Delivers generations to Langfuse's public ingestion API: batches of events, Basic authentication with the
 * public and secret key, retried with backoff on what may pass (post-json.ts). Langfuse answers 207 with per-event errors for bad events;
 * those are counted as delivered and logged, since resending them cannot help.
 */
import type { Logger } from '#src/logger.ts';
import type { ActiveDestination } from '#src/observability/destinations/active-destination.ts';
import type { BroadcastSettings } from '#src/observability/broadcast/broadcast-types.ts';
import { convertToLangfuseEvents } from '#src/observability/broadcast/convert-to-langfuse-batch.ts';
import { deliverWithRetries, postJson } from '#src/observability/broadcast/post-json.ts';
import { DeliveryFailedError, type Sender } from '#src/observability/broadcast/sender.ts';

/** The ingestion URL under a Langfuse base URL; a query the base carries (a proxy's token) stays a query. */
function ingestionUrl(endpoint: string): string {
  const at = endpoint.search(/[?#]/);
  const base = at === -1 ? endpoint : endpoint.slice(0, at);
  const query = at === -1 ? '' : endpoint.slice(at).replace(/#.*$/, '');
  return `${base.replace(/\/+$/, '')}/api/public/ingestion${query}`;
}

/** Creates the sender of a Langfuse destination. */
export function createLangfuseSender(destination: ActiveDestination, settings: BroadcastSettings, logger: Logger): Sender {
  const secret = destination.secrets.secretKey;
  if (!secret || !destination.publicKey) throw new Error(`langfuse destination ${destination.id} has no keys`);
  const url = ingestionUrl(destination.endpoint);
  const authorization = () => `Basic ${Buffer.from(`${destination.publicKey}:${secret.reveal()}`).toString('base64')}`;
  return {
    batchSize: 50,
    async send(items, stop) {
      const batch = items.flatMap((item) => convertToLangfuseEvents(item, { includeContent: destination.includeContent }));
      const body = JSON.stringify({ batch, metadata: { sdk_name: 'switchboard', sdk_integration: 'switchboard-gateway' } });
      const result = await deliverWithRetries(() => postJson(url, body, { authorization: authorization() }, settings.timeoutMs, settings.network.dispatcher()), settings, stop);
      if (!result.ok) throw new DeliveryFailedError(`langfuse delivery failed after ${result.attempts} attempts (${result.last})`);
      if (result.last === '207') logger.debug('langfuse accepted the batch with per-event results', { destination_id: destination.id, events: batch.length });
    },
    close: async () => {},
  };
}
