/**
 * When each part of a generation happened, in epoch milliseconds, for the spans of trace destinations. The
 * record holds the start, the time to first byte, the total and each attempt's duration; attempts run one
 * after another and the last one ends the request (a stream's answering attempt lasts until the stream ends),
 * so each attempt's window is laid out back to back, ending where the request ended. The `moderation`
 * plugin's screening by a catalog model carries its own window (measured where the call is made), which the
 * generation's is widened to hold (the record's start and the screening's are read from two clocks), and
 * which the model's attempts follow: the request waited for the screening before calling its model.
 */
import type { GenerationRecord } from '#src/observability/build-generation-record.ts';
import type { ScreeningWindow } from '#src/plugins/moderation/moderation-verdict.ts';

/** A time window in epoch milliseconds. */
export interface TimeWindow {
  start: number;
  end: number;
}

/** The windows of the whole generation, of the moderation screening and of each attempt. */
export interface GenerationTimeline {
  /** From the earlier of the request's start and the screening's to the later of their ends. */
  generation: TimeWindow;
  /** When the first byte of the answer was sent, if it was. */
  firstByteAt: number | null;
  /** The moderation model's screening call, or null without one. */
  screening: TimeWindow | null;
  attempts: TimeWindow[];
}

/** Lays out the timeline of a record and, when the request was screened by a moderation model, its screening. */
export function generationTimeline(
  record: Pick<GenerationRecord, 'createdAt' | 'totalMs' | 'timeToFirstByteMs' | 'attempts' | 'stream' | 'status'>,
  screened: ScreeningWindow | null = null,
): GenerationTimeline {
  const start = record.createdAt.getTime();
  const end = start + record.totalMs;
  // Plain loops: this runs once per generation and destination batch, and a generation has one attempt or few.
  const recorded = record.attempts as { duration_ms: number }[];
  const count = recorded.length;
  let total = 0;
  for (let index = 0; index < count; index += 1) total += Math.max(0, (recorded[index] as { duration_ms: number }).duration_ms);
  // A stream's answering attempt is measured to its first event; everything after it is that attempt too.
  const answered = record.stream && record.timeToFirstByteMs !== null && count > 0;
  const measuredEnd = answered ? start + (record.timeToFirstByteMs ?? 0) : end;
  const screening = screened ? { start: screened.startedAt, end: Math.max(screened.startedAt, screened.endedAt) } : null;
  // The attempts start no earlier than the screening ended, even where the two clocks put the request's
  // measured end a millisecond or two before it (a loaded machine): the model was called after the screening.
  const earliest = screening ? Math.max(start, screening.end) : start;
  let cursor = Math.max(earliest, measuredEnd - total);
  const attempts: TimeWindow[] = [];
  for (let index = 0; index < count; index += 1) {
    const duration = Math.max(0, (recorded[index] as { duration_ms: number }).duration_ms);
    const window = { start: cursor, end: Math.max(cursor, Math.min(end, cursor + duration)) };
    cursor = window.end;
    if (answered && index === count - 1) window.end = Math.max(window.start, end);
    attempts.push(window);
  }
  const generation = screening ? { start: Math.min(start, screening.start), end: Math.max(end, screening.end) } : { start, end };
  return { generation, firstByteAt: record.timeToFirstByteMs === null ? null : start + record.timeToFirstByteMs, screening, attempts };
}

/**
 * The window of each tool-loop step: from its first attempt's start to its last one's end, the attempts found
 * by identity in the request's list (whose order the timeline's windows follow); the whole generation when none is.
 */
export function stepWindows<T>(timeline: GenerationTimeline, attempts: readonly T[], steps: readonly { records: readonly T[] }[]): TimeWindow[] {
  const indexOf = new Map(attempts.map((tried, index) => [tried, index]));
  return steps.map((step) => {
    const windows = step.records.map((tried) => timeline.attempts[indexOf.get(tried) ?? -1]).filter((window): window is TimeWindow => window !== undefined);
    return windows.length > 0 ? { start: windows[0]!.start, end: windows.at(-1)!.end } : timeline.generation;
  });
}
