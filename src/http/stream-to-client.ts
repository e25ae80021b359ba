/**
 * Sends an event stream to the client. The status and headers are already committed when the first event
 * is written, so a failure after that cannot change the status: it becomes an in-band Anthropic `error`
 * event with the safe message and error type a JSON answer would have had, and the stream ends cleanly.
 * `message_stop` is the last event of a message: the response ends with it, in one write, without waiting for
 * the upstream to close its side; what the upstream sends after it is read and dropped, so its connection
 * returns to the pool rather than being cut.
 */
import type { ErrorEvent } from '#src/api-types.ts';
import { anthropicErrorType } from '#src/error-vocabulary.ts';
import { sseEventName, type SseEvent } from '#src/providers/provider-adapter.ts';
import type { SseWriter } from '#src/http/sse-writer.ts';
import type { Logger } from '#src/logger.ts';
import { toRenderedError } from '#src/http/error-middleware.ts';

/** Writes every event, then ends the response; never throws. */
export async function streamToClient(writer: SseWriter, events: AsyncIterable<SseEvent>, logger: Logger): Promise<void> {
  const iterator = events[Symbol.asyncIterator]();
  let complete = false;
  try {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      if (complete) continue;
      if (writer.closed) break;
      if (sseEventName(next.value) === 'message_stop') {
        writer.end(next.value);
        complete = true;
        continue;
      }
      const backPressure = writer.write(next.value);
      if (backPressure) await backPressure;
    }
  } catch (error) {
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
    writer.end();
  }
}
