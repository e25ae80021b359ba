/**
 * The one error renderer. Every failure becomes the spec's error shape with a safe message: management
 * operations get `{error: {code, message}}`, `/messages` the Anthropic-compatible superset. Only
 * `GatewayError` messages and validation details reach the client; anything else is a logged 500.
 */
import type { ErrorRequestHandler, Request, Response } from 'express';
import { GatewayError, STANDARD_MESSAGES, type ErrorDetail } from '#src/errors.ts';
import type { Logger } from '#src/logger.ts';
import { pruneAlternatives } from '#src/http/validation-details.ts';
import { validationReason } from '#src/http/validation-reason.ts';

const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** What a client is shown for one failure. */
export interface RenderedError {
  status: number;
  message: string;
  details?: ErrorDetail[];
}

interface ValidatorError {
  status: number;
  message?: string;
  errors?: { path?: string; message?: string }[];
}

interface BodyParserError {
  type?: string;
  status?: number;
}

function isValidatorError(error: unknown): error is ValidatorError {
  return typeof error === 'object' && error !== null && 'status' in error && Array.isArray((error as ValidatorError).errors);
}

/** Maps any thrown value to the status and safe message a client sees. */
export function toRenderedError(error: unknown): RenderedError {
  if (error instanceof GatewayError) {
    return { status: error.status, message: error.publicMessage, ...(error.details ? { details: error.details } : {}) };
  }
  const bodyParser = error as BodyParserError;
  if (bodyParser?.type === 'entity.parse.failed') {
    return { status: 400, message: `${STANDARD_MESSAGES[400]}: the body is not valid JSON` };
  }
  if (bodyParser?.type === 'entity.too.large') return { status: 413, message: STANDARD_MESSAGES[413] };
  if (isValidatorError(error)) return fromValidatorError(error);
  return { status: 500, message: STANDARD_MESSAGES[500] };
}

function fromValidatorError(error: ValidatorError): RenderedError {
  switch (error.status) {
    case 400:
    case 415: {
      const details = pruneAlternatives((error.errors ?? []).map((item) => ({ path: item.path ?? '', message: item.message ?? 'is invalid' })));
      const known = validationReason(details);
      const reason = error.status === 415 ? ': Content-Type must be application/json' : known ? `: ${known}` : '';
      return { status: 400, message: `${STANDARD_MESSAGES[400]}${reason}`, details };
    }
    case 401:
      // The validator's own checks fire before our handler: no header, or another scheme than Bearer.
      if (!error.message || error.message.startsWith('Authorization header')) {
        return { status: 401, message: error.message?.includes('scheme') ? 'Invalid Authorization header: expected `Bearer <key>`' : STANDARD_MESSAGES[401] };
      }
      return { status: 401, message: error.message };
    case 403:
      return { status: 403, message: error.message ?? STANDARD_MESSAGES[403] };
    case 404:
      return { status: 404, message: STANDARD_MESSAGES[404] };
    case 405:
      return { status: 405, message: 'Method not allowed' };
    default:
      return { status: 500, message: STANDARD_MESSAGES[500] };
  }
}

/** Whether the request is on the Anthropic-compatible surface (`/messages…`), which gets Anthropic's error shape. */
function isMessagesPath(req: Request): boolean {
  return /\/v1\/messages(\/|$|\?)/.test(req.originalUrl);
}

/** Writes a rendered error in the shape of the surface the request was made on. */
export function sendError(req: Request, res: Response, rendered: RenderedError): void {
  const { status, message, details } = rendered;
  const extra = details && details.length > 0 ? { details } : {};
  if (isMessagesPath(req)) {
    const type = ANTHROPIC_ERROR_TYPES[status] ?? 'api_error';
    res.status(status).json({ type: 'error', error: { type, code: status, message, ...extra } });
  } else {
    res.status(status).json({ error: { code: status, message, ...extra } });
  }
}

/** The error middleware: logs what the client must not see, renders what it may. */
export function createErrorMiddleware(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    const rendered = toRenderedError(error);
    if (rendered.status >= 500) {
      logger.error('request failed', { method: req.method, path: req.path, error });
    } else {
      logger.debug('request rejected', { method: req.method, path: req.path, status: rendered.status, message: rendered.message });
    }
    if (res.headersSent) return next(error);
    sendError(req, res, rendered);
  };
}
