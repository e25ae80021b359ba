/**
 * The request body limit, enforced before the body parser: a body announced (`Content-Length`) or found
 * (counting a chunked body as it arrives) to be larger than the limit answers 413 in the operation's error
 * shape at once, and the connection is closed without reading the rest. The body parser alone would answer
 * only after reading (and discarding) the whole body, however large.
 */
import type { RequestHandler, Request, Response } from 'express';
import { BodyTooLargeError } from '#src/errors.ts';
import { sendError, toRenderedError } from '#src/http/error-middleware.ts';

// How long a refused client may take to read the 413 before its connection is cut. Its body is not read
// meanwhile: the answer goes out, then our side of the connection closes.
const LINGER_MS = 1_000;

function refuse(req: Request, res: Response, limitBytes: number): void {
  res.locals.bodyRefused = true;
  res.setHeader('Connection', 'close');
  sendError(res, toRenderedError(new BodyTooLargeError(limitBytes)));
  const socket = req.socket;
  res.once('finish', () => {
    // The answer has been handed to the kernel: stop reading, close our side, and cut the connection if
    // the client keeps it open.
    socket.pause();
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
}

/** The middleware; mount it before the body parser, after the messages error shape is chosen. */
export function createBodyLimit(limitBytes: number): RequestHandler {
  return (req, res, next) => {
    const declared = req.headers['content-length'];
    if (declared !== undefined) {
      if (Number(declared) > limitBytes) {
        refuse(req, res, limitBytes);
        return;
      }
    } else if (req.headers['transfer-encoding'] !== undefined) {
      let received = 0;
      const count = (chunk: Buffer) => {
        received += chunk.length;
        if (received <= limitBytes || res.headersSent) return;
        req.off('data', count);
        refuse(req, res, limitBytes);
      };
      req.on('data', count);
    }
    next();
  };
}
