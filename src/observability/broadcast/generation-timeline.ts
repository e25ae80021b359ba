/**
 * When each part of a generation happened, in epoch milliseconds, for the spans of trace destinations. The
 * record holds the start, the time to first byte, the total and each attempt's duration; attempts run one
 * after another and the last one ends the request (a stream's answering attempt lasts until the stream ends),
 * so each attempt's window is laid out back to back, ending where the request ended.
 */
import type { GenerationRecord } from '#src/observability/build-generation-record.ts';

/** A time window in epoch milliseconds. */
export interface TimeWindow {
  start: number;
  end: number;
}

/** The windows of the whole generation and of each attempt. */
export interface GenerationTimeline {
  generation: TimeWindow;
  /** When the first byte of the answer was sent, if it was. */
  firstByteAt: number | null;
  attempts: TimeWindow[];
}

/** Lays out the timeline of a record. */
export function generationTimeline(record: Pick<GenerationRecord, 'createdAt' | 'totalMs' | 'timeToFirstByteMs' | 'attempts' | 'stream' | 'status'>): GenerationTimeline {
  const start = record.createdAt.getTime();
  const end = start + record.totalMs;
  const durations = (record.attempts as { duration_ms: number }[]).map((attempt) => Math.max(0, attempt.duration_ms));
  // A stream's answering attempt is measured to its first event; everything after it is that attempt too.
  const answered = record.stream && record.timeToFirstByteMs !== null && durations.length > 0;
  const measuredEnd = answered ? start + (record.timeToFirstByteMs ?? 0) : end;
  let cursor = Math.max(start, measuredEnd - durations.reduce((sum, duration) => sum + duration, 0));
  const attempts = durations.map((duration, index) => {
    const window = { start: cursor, end: Math.min(end, cursor + duration) };
    cursor = window.end;
    if (answered && index === durations.length - 1) window.end = end;
    return window;
  });
  return { generation: { start, end }, firstByteAt: record.timeToFirstByteMs === null ? null : start + record.timeToFirstByteMs, attempts };
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
