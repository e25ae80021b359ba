/**
 * The node:http server's own defences against slow and greedy clients: headers must arrive within the
 * header timeout and the whole request (headers and body) within the body timeout, or the connection gets a
 * 408 and is closed (neither timeout touches a response: a long stream is never cut by them); idle
 * keep-alive connections close after the keep-alive timeout; a request with more header fields than the limit
 * (or a header section over node's size limit) answers 431. These failures are found before a request
 * exists, so they are written in the `ErrorBody` shape, whatever the path, named as every error is by a
 * `request-id` header that the log line about them repeats.
 */
import type { Server, ServerOptions } from 'node:http';
import { maxHeaderSize } from '#src/http/node-http.ts';
import type { Duplex } from 'node:stream';
import { STANDARD_MESSAGES } from '#src/errors.ts';
import type { Logger } from '#src/logger.ts';
import { newGenerationId } from '#src/http/generation-id.ts';

/** The limits, from the configuration. */
export interface ServerLimits {
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxHeaderCount: number;
}

/** Options for `createServer`. */
export function serverOptions(limits: ServerLimits): ServerOptions {
  const requestTimeout = limits.bodyTimeoutMs === 0 ? 0 : Math.max(limits.bodyTimeoutMs, limits.headersTimeoutMs);
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // How often the timeouts are checked: a slow client is cut at most this long after its timeout.
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

/**
 * Applies what `createServer` takes as properties: node's parser refuses a request with more header fields
 * than `maxHeadersCount` (as it refuses a header section over `maxHeaderSize`), which the client-error
 * handler answers with 431.
 */
export function applyServerLimits(server: Server, limits: ServerLimits): void {
  server.maxHeadersCount = limits.maxHeaderCount;
}

function rawAnswer(requestId: string, status: number, reason: string, message: string): string {
  const body = JSON.stringify({ error: { code: status, message } });
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nrequest-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`;
}

/**
 * What a connection-level failure is answered with, named by `requestId` in its `request-id` header;
 * undefined: just close the connection.
 */
export function clientErrorAnswer(error: Error & { code?: string }, limits: ServerLimits, requestId: string): string | undefined {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return rawAnswer(
        requestId,
        408,
        'Request Timeout',
        `Request Timeout: the request did not arrive in time (headers within ${limits.headersTimeoutMs} ms, the whole request within ${limits.bodyTimeoutMs} ms)`,
      );
    case 'HPE_HEADER_OVERFLOW':
      return rawAnswer(
        requestId,
        431,
        'Request Header Fields Too Large',
        `${STANDARD_MESSAGES[431]}: at most ${limits.maxHeaderCount} header fields and ${maxHeaderSize} bytes of headers are accepted`,
      );
    case 'ECONNRESET':
    case 'EPIPE':
      return undefined;
    default:
      return rawAnswer(requestId, 400, 'Bad Request', `${STANDARD_MESSAGES[400]}: the request is not valid HTTP`);
  }
}

/** Answers connection-level failures (timeouts, malformed requests) in the error shape, then closes. */
export function installClientErrorHandler(server: Server, limits: ServerLimits, logger: Logger): void {
  server.on('clientError', (error: Error & { code?: string }, socket: Duplex) => {
    const requestId = newGenerationId();
    const answer = clientErrorAnswer(error, limits, requestId);
    // A response already under way on this socket cannot take another status line.
    const busy = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    const answered = answer !== undefined && socket.writable && !busy;
    // The id the answer names, so a client's report of it finds this line.
    logger.debug('connection-level client error', { code: error.code, message: error.message, ...(answered ? { request_id: requestId } : {}) });
    if (answered) socket.end(answer);
    else socket.destroy();
  });
}
