/**
 * The broadcaster: one delivery channel per destination, rebuilt when the destination changes and closed when
 * it goes. `offer` samples each destination by trace id and queues; it never waits. Loaded lazily (see
 * broadcast-types.ts), with the OTLP exporters loaded later still, per protocol, on first use.
 */
import type { Logger } from '#src/logger.ts';
import type { ActiveDestination } from '#src/observability/destinations/active-destination.ts';
import { OTLP_BATCH_SIZE, type Broadcaster, type BroadcastHooks, type BroadcastSettings } from '#src/observability/broadcast/broadcast-types.ts';
import { DeliveryChannel } from '#src/observability/broadcast/delivery-channel.ts';
import type { Sender } from '#src/observability/broadcast/sender.ts';
import { createLangfuseSender } from '#src/observability/broadcast/langfuse-sender.ts';
import { createWebhookSender } from '#src/observability/broadcast/webhook-sender.ts';
import { isSampled, resolveTraceContext } from '#src/observability/broadcast/trace-context.ts';

/**
 * The OTLP sender and the OpenTelemetry packages behind it load when an OTLP destination's channel opens
 * (`warm`, called by the channel), so a gateway with only webhook or Langfuse destinations never loads them,
 * and one with an OTLP destination has them loaded before its traffic, not while its first batch waits.
 */
function lazyOtlpSender(destination: ActiveDestination, settings: BroadcastSettings): Sender {
  let sender: Promise<Sender> | undefined;
  const load = () => (sender ??= import('#src/observability/broadcast/otlp-sender.ts').then((module) => module.createOtlpSender(destination, settings)));
  return {
    batchSize: OTLP_BATCH_SIZE,
    send: async (items, signals) => (await load()).send(items, signals),
    // A module that fails to load fails each `send` instead, which counts and logs it.
    warm: () => load().then((loaded) => loaded.warm?.(), () => {}),
    close: async () => {
      const loaded = await sender?.catch(() => undefined);
      if (loaded) await loaded.close();
    },
  };
}

function createSender(destination: ActiveDestination, settings: BroadcastSettings, logger: Logger): Sender {
  switch (destination.kind) {
    case 'otlp':
      return lazyOtlpSender(destination, settings);
    case 'langfuse':
      return createLangfuseSender(destination, settings, logger);
    case 'webhook':
      return createWebhookSender(destination, settings);
    default: {
      const unreachable: never = destination.kind;
      throw new Error(`unknown destination kind ${String(unreachable)}`);
    }
  }
}

/** Creates the broadcaster. */
export function createBroadcaster(settings: BroadcastSettings, hooks: BroadcastHooks, logger: Logger): Broadcaster {
  const channels = new Map<string, DeliveryChannel>();
  // A destination object lives until its directory reloads: its key is built once, not once per offer (a new
  // string each time, hashed again for the lookup).
  const keys = new WeakMap<ActiveDestination, string>();
  const channelKey = (destination: ActiveDestination) => {
    let key = keys.get(destination);
    if (key === undefined) {
      key = `${destination.id}@${destination.revision}`;
      keys.set(destination, key);
    }
    return key;
  };
  return {
    offer(item, destinations) {
      const traced = { ...item, trace: resolveTraceContext(item.record) };
      for (const destination of destinations) {
        if (!isSampled(traced.trace.traceId, destination.samplingRate)) continue;
        channels.get(channelKey(destination))?.enqueue(traced);
      }
    },
    sync(destinations) {
      const wanted = new Map(destinations.map((destination) => [channelKey(destination), destination]));
      for (const [key, channel] of channels) {
        if (wanted.has(key)) continue;
        channels.delete(key);
        void channel.close();
      }
      for (const [key, destination] of wanted) {
        if (channels.has(key)) continue;
        try {
          channels.set(key, new DeliveryChannel({ destination, sender: createSender(destination, settings, logger), limit: settings.queueLimit, hooks, logger }));
        } catch (error) {
          logger.warn('a broadcast destination cannot be used', { destination_id: destination.id, error });
        }
      }
    },
    depths() {
      const depths: Record<string, number> = {};
      for (const channel of channels.values()) depths[channel.destination.kind] = (depths[channel.destination.kind] ?? 0) + channel.depth;
      return depths;
    },
    async close(flushBudgetMs) {
      await Promise.all([...channels.values()].map((channel) => channel.flushAndClose(flushBudgetMs)));
      channels.clear();
    },
  };
}
