/**
 * Delivers generations to Langfuse's public ingestion API: batches of events, Basic authentication with the
 * public and secret key, retried with backoff on what may pass (post-json.ts). Langfuse answers 207 with
 * per-event errors for events it refused: a generation with a refused event is counted as dropped
 * (`rejected`) and logged with Langfuse's message, not resent (the same events would be refused again).
 */
import { withoutUserInfo } from '#src/http/url-user-info.ts';
import { withoutSecrets, type Logger } from '#src/logger.ts';
import { destinationSecretValues, type ActiveDestination } from '#src/observability/destinations/active-destination.ts';
import type { BroadcastSettings } from '#src/observability/broadcast/broadcast-types.ts';
import { convertToLangfuseEvents, type LangfuseEvent } from '#src/observability/broadcast/convert-to-langfuse-batch.ts';
import { deliverWithRetries, postJsonReading } from '#src/observability/broadcast/post-json.ts';
import { DeliveryFailedError, type Sender } from '#src/observability/broadcast/sender.ts';

/** The ingestion URL under a Langfuse base URL; a query the base carries (a proxy's token) stays a query. */
function ingestionUrl(endpoint: string): string {
  const at = endpoint.search(/[?#]/);
  const base = at === -1 ? endpoint : endpoint.slice(0, at);
  const query = at === -1 ? '' : endpoint.slice(at).replace(/#.*$/, '');
  return `${base.replace(/\/+$/, '')}/api/public/ingestion${query}`;
}

/** One entry of the `errors` of Langfuse's 207 ingestion answer. */
interface RefusedEvent {
  id: string;
  status: number;
  message: string;
}

/** The refused events of an ingestion answer (`{successes, errors}`); none when the answer is not one. */
function refusedEvents(answer: string, secrets: readonly string[]): RefusedEvent[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer);
  } catch {
    return [];
  }
  const errors = (parsed as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((entry: unknown) => {
    const { id, status, message } = (entry ?? {}) as { id?: unknown; status?: unknown; message?: unknown };
    if (typeof id !== 'string') return [];
    // Langfuse may quote the Basic header it refused, which holds the secret key: removed before it is logged.
    return [{ id, status: typeof status === 'number' ? status : 0, message: typeof message === 'string' ? withoutSecrets(message.slice(0, 2_000), secrets).slice(0, 200) : 'refused' }];
  });
}

/** Creates the sender of a Langfuse destination. */
export function createLangfuseSender(destination: ActiveDestination, settings: BroadcastSettings, logger: Logger): Sender {
  const secret = destination.secrets.secretKey;
  if (!secret || !destination.publicKey) throw new Error(`langfuse destination ${destination.id} has no keys`);
  // Langfuse's Basic authentication is its keys': an endpoint with user-info is refused at start.
  const url = ingestionUrl(withoutUserInfo(destination.endpoint));
  const authorization = () => `Basic ${Buffer.from(`${destination.publicKey}:${secret.reveal()}`).toString('base64')}`;
  return {
    batchSize: 50,
    async send(items, signals) {
      const batch: LangfuseEvent[] = [];
      // Which item each event came from, to count the generations whose events Langfuse refused.
      const itemOfEvent = new Map<string, number>();
      items.forEach((item, index) => {
        for (const event of convertToLangfuseEvents(item, { includeContent: destination.includeContent })) {
          batch.push(event);
          itemOfEvent.set(event.id, index);
        }
      });
      const body = JSON.stringify({ batch, metadata: { sdk_name: 'switchboard', sdk_integration: 'switchboard-gateway' } });
      let answer = '';
      const result = await deliverWithRetries(
        async () => {
          const response = await postJsonReading(url, body, { authorization: authorization() }, settings.timeoutMs, settings.network.dispatcher());
          answer = response.text;
          return response;
        },
        settings,
        signals,
      );
      if (!result.ok) throw new DeliveryFailedError(`langfuse delivery failed after ${result.attempts} attempts (${result.last})`);
      const refused = refusedEvents(answer, destinationSecretValues(destination));
      if (refused.length === 0) return;
      const rejected = new Set(refused.map((error) => itemOfEvent.get(error.id)).filter((index) => index !== undefined));
      const first = refused[0]!;
      logger.debug('langfuse refused events', { destination_id: destination.id, events: refused.length, errors: refused.slice(0, 5) });
      return { rejected: rejected.size, reason: `Langfuse refused ${refused.length} of ${batch.length} events, e.g. ${first.id}: ${first.status} ${first.message}` };
    },
    close: async () => {},
  };
}
