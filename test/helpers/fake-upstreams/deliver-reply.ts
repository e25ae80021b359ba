import type { ServerResponse } from 'node:http';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { FakeReply, ReplyDelivery } from './fake-reply.ts';
import { readChunks, readFixtureText } from './fixtures.ts';
import { splitBytes } from './split-bytes.ts';
import type { RecordedRequest, WireFormat } from './wire-format.ts';

/** What a reply needs to know about the request it answers. */
export interface ReplyContext {
  format: WireFormat;
  request: RecordedRequest;
  /** Aborted when the client goes away or the fake closes: ends delays and stalls. */
  signal: AbortSignal;
}

interface ResponsePlan {
  status: number;
  headers: Record<string, string>;
  /** Stream events, or the whole JSON body as the single frame. */
  frames: Buffer[];
  streaming: boolean;
}

function jsonBytes(body: unknown): Buffer {
  return Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
}

function planFor(item: Exclude<FakeReply, { type: 'reset' } | { type: 'either' }>, { format, request }: ReplyContext): ResponsePlan {
  const json = { 'content-type': 'application/json' };
  const stream = { 'content-type': format.streamContentType, 'cache-control': 'no-cache' };
  switch (item.type) {
    case 'fixture': {
      const vendor = item.vendor ?? format.fixtureVendor;
      const asStream = item.name.endsWith('.chunks.txt') || (!item.name.endsWith('.json') && request.streaming);
      if (asStream) {
        const frames = readChunks(vendor, item.name).map((payload, index) => format.encodeEvent(payload, index));
        return { status: item.status ?? 200, headers: stream, frames, streaming: true };
      }
      const fileName = item.name.endsWith('.json') ? item.name : `${item.name}.json`;
      // The recorded bytes are sent as they are, so passthrough tests can compare bytes.
      const frames = [Buffer.from(readFixtureText(vendor, fileName), 'utf8')];
      return { status: item.status ?? 200, headers: json, frames, streaming: false };
    }
    case 'json':
      return { status: item.status ?? 200, headers: json, frames: [jsonBytes(item.body)], streaming: false };
    case 'events': {
      const frames = item.events.map((payload, index) => format.encodeEvent(payload, index));
      return { status: 200, headers: stream, frames, streaming: true };
    }
    case 'sse':
      return { status: 200, headers: stream, frames: item.frames.map((frame) => Buffer.from(frame, 'utf8')), streaming: true };
    case 'error': {
      const vendorError = format.errorFor(item.status, item.message, item.code);
      const body =
        item.fixture !== undefined
          ? readFixtureText(item.vendor ?? format.fixtureVendor, `${item.fixture.replace(/\.json$/, '')}.json`)
          : (item.body ?? vendorError.body);
      return { status: item.status, headers: { ...json, ...vendorError.headers }, frames: [jsonBytes(body)], streaming: false };
    }
    default: {
      const unknownReply: never = item;
      throw new TypeError(`unknown fake reply ${JSON.stringify(unknownReply)}`);
    }
  }
}

async function pause(milliseconds: number, signal: AbortSignal): Promise<void> {
  // Even without a delay, yield between writes so each piece leaves as its own socket write.
  const waiting = milliseconds > 0 ? sleep(milliseconds, undefined, { signal }) : nextTurn(undefined, { signal });
  await waiting.catch(() => undefined);
}

// Resolves when the test lets the reply go, or when the exchange is aborted.
async function held(until: Promise<unknown>, signal: AbortSignal): Promise<void> {
  await Promise.race([until.catch(() => undefined), new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))]);
}

async function write(res: ServerResponse, piece: Buffer, signal: AbortSignal): Promise<void> {
  if (res.write(piece) || signal.aborted) return;
  await new Promise<void>((resolve) => {
    res.once('drain', resolve);
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** The pieces to write: one per frame, or the same bytes re-cut at arbitrary boundaries. */
function piecesFor(plan: ResponsePlan, delivery: ReplyDelivery, context: ReplyContext): Buffer[] {
  const { truncate, stallAfterEvents, streamError } = delivery;
  const stopAt = Math.min(
    plan.frames.length,
    truncate?.afterEvents ?? Infinity,
    stallAfterEvents ?? Infinity,
    streamError?.afterEvents ?? Infinity,
  );
  const pieces = plan.frames.slice(0, stopAt);
  const next = plan.frames[stopAt];
  if (truncate !== undefined && next !== undefined && (truncate.plusBytes ?? 0) > 0) {
    pieces.push(next.subarray(0, truncate.plusBytes));
  }
  if (streamError !== undefined) {
    const encode = context.format.streamErrorFor;
    if (encode === undefined) throw new Error('this wire format has no in-stream error event');
    pieces.push(encode(streamError.status, streamError.message, streamError.code));
  }
  const complete = truncate === undefined && stallAfterEvents === undefined && streamError === undefined;
  if (complete && plan.streaming && context.format.streamTerminator !== undefined) {
    pieces.push(context.format.streamTerminator);
  }
  return delivery.split === undefined ? pieces : splitBytes(Buffer.concat(pieces), delivery.split);
}

/** Sends one scripted reply with its timing and faults; resolves once the exchange is over. */
export async function deliverReply(res: ServerResponse, item: Exclude<FakeReply, { type: 'either' }>, context: ReplyContext): Promise<void> {
  const { signal } = context;
  if (item.delayMs !== undefined) await pause(item.delayMs, signal);
  if (item.type !== 'reset' && item.until !== undefined) await held(item.until, signal);
  if (signal.aborted) return;
  if (item.type === 'reset') {
    res.socket?.resetAndDestroy();
    return;
  }
  const plan = planFor(item, context);
  const pieces = piecesFor(plan, item, context);
  const headers: Record<string, string> = { ...plan.headers, ...item.headers };
  const wholeBody = !plan.streaming && item.truncate?.mode !== 'end';
  if (wholeBody) headers['content-length'] = String(plan.frames[0]?.length ?? 0);
  res.writeHead(plan.status, headers);
  res.flushHeaders();
  for (const [index, piece] of pieces.entries()) {
    if (signal.aborted) return;
    if (index > 0) await pause(item.chunkDelayMs ?? 0, signal);
    await write(res, piece, signal);
  }
  if (item.truncate?.mode === 'destroy') {
    // Let the written bytes leave before the socket goes, so the client sees a body cut short.
    await pause(5, signal);
    res.destroy();
  } else if (item.stallAfterEvents !== undefined && item.truncate === undefined) {
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  } else {
    res.end();
  }
}
