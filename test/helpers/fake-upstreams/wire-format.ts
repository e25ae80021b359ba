import type { IncomingHttpHeaders } from 'node:http';
import type { FixtureVendor } from './fixtures.ts';

/** One request as the fake upstream received it, kept for assertions on what the gateway sent. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string, e.g. `/v1/messages` or `/model/anthropic.claude-x%3A0/converse`. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or `undefined` when the body was empty or not JSON. */
  body: unknown;
  rawBody: string;
  /** The vendor operation the path matched, e.g. `messages`, `count_tokens`, `converse-stream`. */
  operation: string;
  /** Values taken from the path, e.g. `{ model: 'gemini-2.5-flash' }` or `{ modelId: '…' }`. */
  params: Record<string, string>;
  /** Whether the request asked for a stream (body `stream: true` or a streaming path). */
  streaming: boolean;
}

/** A request path the wire format serves. */
export interface RouteMatch {
  operation: string;
  params: Record<string, string>;
  /** Set when the path alone says whether the answer streams (Gemini, Bedrock). */
  streamingPath?: boolean;
}

/** A complete HTTP answer that does not go through the reply queue. */
export interface DirectAnswer {
  status: number;
  body: unknown;
  /** Headers the vendor sends with it (e.g. Bedrock's `x-amzn-errortype` on a refused request). */
  headers?: Record<string, string>;
}

/** An error answer in the vendor's shape. */
export interface VendorError {
  body: unknown;
  headers: Record<string, string>;
}

/** What differs between vendors: paths, stream framing and error shapes. The server core does the rest. */
export interface WireFormat {
  /** Folder of `test/fixtures/` that fixture names refer to by default. */
  fixtureVendor: FixtureVendor;
  /** Matches a request; `undefined` answers 404 in the vendor's error shape. */
  route(method: string, path: string): RouteMatch | undefined;
  /** Answers operations that need no script (e.g. Anthropic `count_tokens`); `undefined` uses the queue. */
  answerDirectly?(request: RecordedRequest): DirectAnswer | undefined;
  /** `Content-Type` of a streamed answer. */
  streamContentType: string;
  /** Encodes one event payload (one `.chunks.txt` line) in the vendor's stream framing. */
  encodeEvent(payload: unknown, index: number): Buffer;
  /** Bytes after the last event, e.g. OpenAI chat's `data: [DONE]`. */
  streamTerminator?: Buffer;
  /**
   * The vendor's error body and headers for an HTTP status; `code` names the vendor's error class or code
   * where the status alone does not say it (Bedrock's exception name, OpenAI-style `error.code`).
   */
  errorFor(status: number, message?: string, code?: string): VendorError;
  /** The vendor's in-stream error event for a status (with the vendor's error code, where it has one). */
  streamErrorFor?(status: number, message?: string, code?: string): Buffer;
}

/** Parses a URL query string into a plain record (last value wins). */
export function queryRecord(search: URLSearchParams): Record<string, string> {
  return Object.fromEntries(search.entries());
}
