/**
 * The plugins' hook after the answer: `response-healing` on the message (or its events), then what every
 * enabled plugin did into `gateway_metadata.plugins` when the client asked for the metadata (in a stream, on
 * the `message_stop` event that carries it). With no plugin enabled the answer passes untouched.
 */
import type { MessageResponse, PluginReport, ResponseHealingReport } from '#src/api-types.ts';
import { isRawSseEvent, type SseEvent } from '#src/providers/provider-adapter.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import { schemaCheck, type HealOutcome } from '#src/plugins/json-healing.ts';
import { nothingAfterAnswer, reportsFor, type PluginState } from '#src/plugins/plugin-state.ts';
import { NOT_APPLICABLE, healMessage, healStream, healingReport } from '#src/plugins/response-healing.ts';

function withReports(message: MessageResponse, reports: PluginReport[]): MessageResponse {
  if (!message.gateway_metadata || reports.length === 0) return message;
  return { ...message, gateway_metadata: { ...message.gateway_metadata, plugins: reports } };
}

/** The plugins' pass over a complete message answered by `attempt`. */
export function applyPluginsToMessage(message: MessageResponse, state: PluginState, attempt: Attempt): MessageResponse {
  if (nothingAfterAnswer(state)) return message;
  if (!state.enabled['response-healing']) return withReports(message, reportsFor(state, attempt));
  if (state.outputSchema === undefined) return withReports(message, reportsFor(state, attempt, [NOT_APPLICABLE]));
  const healed = healMessage(message, schemaCheck(state.outputSchema));
  return withReports(healed.message, reportsFor(state, attempt, [healed.report]));
}

async function* addReportsAtStop(events: AsyncIterable<SseEvent>, reports: () => PluginReport[]): AsyncGenerator<SseEvent> {
  for await (const event of events) {
    // The gateway's own message_stop is typed when it carries metadata; an upstream's raw one carries none.
    if (!isRawSseEvent(event) && event.type === 'message_stop' && event.gateway_metadata) {
      const plugins = reports();
      yield plugins.length > 0 ? { ...event, gateway_metadata: { ...event.gateway_metadata, plugins } } : event;
      continue;
    }
    yield event;
  }
}

/**
 * The plugins' pass over an event stream answered by `attempt`: an attempt, or for a tool loop whose steps may
 * fall over to another attempt, a function read at the end giving the attempt that served the last step.
 */
export function applyPluginsToStream(events: AsyncIterable<SseEvent>, state: PluginState, attempt: Attempt | (() => Attempt)): AsyncIterable<SseEvent> {
  if (nothingAfterAnswer(state)) return events;
  const served = typeof attempt === 'function' ? attempt : () => attempt;
  if (!state.enabled['response-healing']) return addReportsAtStop(events, () => reportsFor(state, served()));
  if (state.outputSchema === undefined) return addReportsAtStop(events, () => reportsFor(state, served(), [NOT_APPLICABLE]));
  const outcomes: HealOutcome[] = [];
  const healed = healStream(events, schemaCheck(state.outputSchema), outcomes);
  return addReportsAtStop(healed, () => reportsFor(state, served(), [healingReport(outcomes) satisfies ResponseHealingReport]));
}
