/**
 * Sends an event stream to the client. The status and headers are already committed when the first event
 * is written, so a failure after that cannot change the status: it becomes an in-band Anthropic `error`
 * event with the safe message and error type a JSON answer would have had, and the stream ends cleanly.
 * `message_stop` is the last event of a message: the response ends with it, in one write, without waiting for
 * the upstream to close its side; what the upstream sends after it is read and dropped, so its connection
 * returns to the pool rather than being cut. The stream's synchronous stages (the gateway's additions, the
 * shutdown deadline, the record: src/providers/event-stages.ts) run here on each event as it is read, in this
 * one loop, rather than as async generators each event would pass through. The writer holds what the loop
 * writes between two waits and releases it before each, so a stream read whole (one upstream packet, ended by
 * its message_stop) goes out in one write without a turn scheduled for a batch that the end already took.
 */
import type { ErrorEvent } from '#src/api-types.ts';
import { anthropicErrorType } from '#src/error-vocabulary.ts';
import { sseEventName, type SseEvent } from '#src/providers/provider-adapter.ts';
import type { SseWriter } from '#src/http/sse-writer.ts';
import type { Logger } from '#src/logger.ts';
import { toRenderedError } from '#src/http/error-middleware.ts';
import { readyEventsOf, StageRun, StagedEvents, type EventStage } from '#src/providers/event-stages.ts';

const NO_STAGES: readonly EventStage[] = [];

/**
 * Writes every event, then ends the response; never throws. Staged events are read from their source and run
 * through their stages here: every event read passes them, those after `message_stop` included, and they hear
 * how the stream ended before the response ends.
 */
export async function streamToClient(writer: SseWriter, events: AsyncIterable<SseEvent>, logger: Logger): Promise<void> {
  const source = events instanceof StagedEvents ? events.source : events;
  const iterator = source[Symbol.asyncIterator]();
  // What the source holds already (the rest of an upstream packet) is taken without a promise and a turn each.
  const ready = readyEventsOf(iterator);
  const run = new StageRun(events instanceof StagedEvents ? events.stages : NO_STAGES);
  let complete = false;
  // What is written between two waits leaves in one write: released before each wait, or with the end.
  writer.hold();
  try {
    for (;;) {
      let read = ready?.nextReady();
      if (read === undefined) {
        writer.release();
        const next = await iterator.next();
        writer.hold();
        if (next.done) break;
        read = next.value;
      }
      const event = run.pass(read);
      if (complete) continue;
      // The client left: the stream is abandoned (recorded as cancelled), not complete.
      if (writer.closed) return;
      if (sseEventName(event) === 'message_stop') {
        writer.end(event);
        complete = true;
        continue;
      }
      const backPressure = writer.write(event);
      if (backPressure) {
        writer.release();
        await backPressure;
        writer.hold();
      }
    }
    run.complete();
  } catch (thrown) {
    // A read stopped because the client left (its request signal aborts the upstream call) is the client's
    // leaving, not an upstream failure: `finally` abandons the run.
    if (writer.closed && !complete) return;
    const error = run.fail(thrown);
    if (complete) {
      logger.debug('upstream failed after the message was complete', { error });
      return;
    }
    const rendered = toRenderedError(error);
    logger.warn('stream failed after its first byte', { error });
    // The same type the failure would have had as a JSON error, from the same table.
    const payload: ErrorEvent = { type: 'error', error: { type: anthropicErrorType(rendered.status), message: rendered.message } };
    writer.end(payload);
  } finally {
    // Stops the upstream read when the client went away mid-stream.
    await iterator.return?.().catch(() => undefined);
    run.abandon();
    writer.end();
  }
}
