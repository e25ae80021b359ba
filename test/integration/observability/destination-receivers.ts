/**
 * The receiving end of the observability suites: destinations created over the management API, capture servers
 * standing in for an OTLP collector and Langfuse on 127.0.0.1, and what they received read back as a collector
 * would (OTLP exports decoded to spans, Langfuse ingestion batches to events), polled until it arrives.
 */
import { expect } from 'vitest';
import { callApi } from '#test/helpers/management-api.ts';
import { startCaptureServer, type CaptureServer } from '#test/helpers/capture-server.ts';
import { decodeTraceExport, type DecodedSpan } from '#test/helpers/otlp-decode.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';

/** The path an OTLP/HTTP trace export is posted to. */
export const TRACES_PATH = '/v1/traces';
/** The path of Langfuse's ingestion API. */
export const INGESTION_PATH = '/api/public/ingestion';

/** Creates a destination with the management key, failing the test unless it answered 201; returns its id. */
export async function createDestination(gateway: Pick<TestGateway, 'baseUrl' | 'management_key'>, body: Record<string, unknown>): Promise<string> {
  const response = await callApi(gateway.baseUrl, 'POST', '/observability/destinations', { key: gateway.management_key, body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data.id as string;
}

/** Deletes destination `id` with the management key (a suite's clean-up: the answer is not checked). */
export async function deleteDestination(gateway: Pick<TestGateway, 'baseUrl' | 'management_key'>, id: string): Promise<void> {
  await callApi(gateway.baseUrl, 'DELETE', `/observability/destinations/${id}`, { key: gateway.management_key });
}

/** A stand-in OTLP collector (answers 200) and a stand-in Langfuse (answers its 207 of an accepted batch). */
export async function startTraceReceivers(): Promise<{ collector: CaptureServer; langfuse: CaptureServer }> {
  const [collector, langfuse] = await Promise.all([startCaptureServer({ status: 200, body: {} }), startCaptureServer({ status: 207, body: { successes: [], errors: [] } })]);
  return { collector, langfuse };
}

/** Every span `receiver` got so far, decoded by each export's content type; only exports posted to `path` when given. */
export function receivedSpans(receiver: CaptureServer, path?: string): DecodedSpan[] {
  return receiver.requests.filter((request) => path === undefined || request.path === path).flatMap((request) => decodeTraceExport(request.body, request.headers['content-type']));
}

/** A Langfuse ingestion event as the receiver got it. */
export interface IngestionEvent {
  id: string;
  type: string;
  timestamp: string;
  body: Record<string, any>;
}

/** Every event of every ingestion batch `receiver` got so far; only batches posted to `path` when given. */
export function ingestedEvents(receiver: CaptureServer, path?: string): IngestionEvent[] {
  return receiver.requests.filter((request) => path === undefined || request.path === path).flatMap((request) => JSON.parse(request.body.toString()).batch as IngestionEvent[]);
}

/** Polls `read` every 25 ms until it finds something, for 15 s; fails naming `what` after that. */
export async function arrived<T>(what: string, read: () => T | undefined): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = read();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no ${what} arrived`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A generation's span and every span of its trace. */
export interface GenerationTrace {
  generation: DecodedSpan;
  spans: DecodedSpan[];
}

/**
 * The trace holding generation `id`, once `receiver` got its generation span (the gateway's queued records are
 * flushed first); only exports posted to `path` when given.
 */
export async function traceOf(gateway: TestGateway, receiver: CaptureServer, id: string, path?: string): Promise<GenerationTrace> {
  await gateway.server.flushRecords();
  return arrived(`span of ${id}${path ? ` at ${path}` : ''}`, () => {
    const spans = receivedSpans(receiver, path);
    const generation = spans.find((span) => span.attributes['switchboard.generation.id'] === id);
    return generation && { generation, spans: spans.filter((span) => span.traceId === generation.traceId) };
  });
}
