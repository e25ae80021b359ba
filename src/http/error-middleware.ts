/**
 * The one error renderer. Every failure becomes the spec's error shape with a safe message: management
 * operations get `ErrorBody` (`{error: {code, message}}`, details a list), the operations Anthropic's API has
 * (`/messages`, the models ones) `MessagesErrorBody`, Anthropic's shape (details an object keyed by `error_code`). Only `GatewayError` messages
 * and validation details reach the client; anything else is a logged 500.
 */
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { ErrorBody, MessagesErrorBody, MessagesErrorDetails } from '#src/api-types.ts';
import { DatabaseUnavailableError, GatewayError, NotFoundError, STANDARD_MESSAGES, type ErrorDetail } from '#src/errors.ts';
import { threadErrorCodeOf, type ThreadErrorCode } from '#src/thread-errors.ts';
import { toolChangesErrorCodeOf, type ToolChangesErrorCode } from '#src/providers/ai-sdk/check-translatable-fields.ts';
import { isDatabaseUnavailable } from '#src/store/database-availability.ts';
import { anthropicErrorType } from '#src/error-vocabulary.ts';
import type { Logger } from '#src/logger.ts';
import { pruneAlternatives } from '#src/http/validation-details.ts';
import { validationReason } from '#src/http/validation-reason.ts';
import { chosenBranchReason, chosenBranches } from '#src/http/chosen-branch.ts';
import { firstProblem } from '#src/http/validation-problem.ts';
import { fromBodyParserError, isBodyParserError, unsupportedMediaTypeMessage, type BodyRequestContext } from '#src/http/body-errors.ts';
import { withImpliedMethods } from '#src/http/method-semantics.ts';
import { unknownPathMessage } from '#src/http/exact-paths.ts';
import { requestIdOf } from '#src/http/generation-id.ts';

/** What a client is shown for one failure. */
export interface RenderedError {
  status: number;
  message: string;
  details?: ErrorDetail[];
  /** Response headers the status calls for (`Allow` on a 405). */
  headers?: Record<string, string>;
  /** Anthropic's code for a condition its SDKs recover from, shown as `details.error_code` in Anthropic's shape. */
  errorCode?: ThreadErrorCode | ToolChangesErrorCode;
}

/** The parts of the failed request a message may name (its method, its Content-Type, the matched operation). */
export interface FailedRequestContext extends BodyRequestContext {
  method: string;
  /** The path requested, without the query (named by a 404 for a path the spec does not have). */
  path?: string;
  /** The parsed body, when there is one (a message may name a value the client sent). */
  body?: unknown;
  /** The parsed query string (a parameter given twice is a list). */
  query?: unknown;
}

interface ValidatorError {
  status: number;
  message?: string;
  errors?: { path?: string; message?: string }[];
  headers?: Record<string, string>;
}

function isValidatorError(error: unknown): error is ValidatorError {
  return typeof error === 'object' && error !== null && 'status' in error && Array.isArray((error as ValidatorError).errors);
}

/** Maps any thrown value to the status and safe message a client sees; `request` lets a message name what was sent. */
export function toRenderedError(error: unknown, request?: FailedRequestContext): RenderedError {
  if (error instanceof GatewayError) {
    const anthropicCode = threadErrorCodeOf(error) ?? toolChangesErrorCodeOf(error);
    const code = anthropicCode ? { errorCode: anthropicCode } : {};
    return { status: error.status, message: error.publicMessage, ...(error.details ? { details: error.details } : {}), ...(error.headers ? { headers: { ...error.headers } } : {}), ...code };
  }
  if (isBodyParserError(error)) return fromBodyParserError(error);
  if (isValidatorError(error)) return fromValidatorError(error, request);
  // A management operation (or an uncached key) while the database is unreachable: retryable, not a 500.
  if (isDatabaseUnavailable(error)) return { status: 503, message: new DatabaseUnavailableError().publicMessage };
  return { status: 500, message: STANDARD_MESSAGES[500] };
}

function fromValidatorError(error: ValidatorError, request: FailedRequestContext | undefined): RenderedError {
  switch (error.status) {
    case 400: {
      const reported = (error.errors ?? []).map((item) => ({ path: item.path ?? '', message: item.message ?? 'is invalid' }));
      // A union's value is told what is wrong with the alternative its tag chose, not with every other one.
      const chosen = chosenBranches(reported, request?.body, request?.openapi?.schema?.operationId);
      const details = pruneAlternatives(reported, chosen);
      // Every refusal names its first problem in the message, for clients that show only the message.
      const known = validationReason(details, request?.body) ?? chosenBranchReason(chosen) ?? firstProblem(details, request?.query);
      return { status: 400, message: known ? `${STANDARD_MESSAGES[400]}: ${known}` : STANDARD_MESSAGES[400], details };
    }
    case 415:
      return { status: 415, message: unsupportedMediaTypeMessage(request) };
    case 401:
      // Only the validator's own checks, which fire before any security handler runs, arrive here (a failure
      // of the handler replaces them): no key header at all, or an Authorization scheme other than Bearer.
      return { status: 401, message: error.message?.includes('scheme') ? 'Invalid Authorization header: expected `Bearer <key>`' : STANDARD_MESSAGES[401] };
    case 403:
      return { status: 403, message: error.message ?? STANDARD_MESSAGES[403] };
    case 404:
      // The validator's only 404 is a path the spec does not have.
      return { status: 404, message: request?.path === undefined ? STANDARD_MESSAGES[404] : unknownPathMessage(request.method, request.path) };
    case 405: {
      // The validator lists the methods the spec gives the path; HEAD (where GET is) and OPTIONS are allowed too.
      const allow = withImpliedMethods(error.headers?.Allow ?? '');
      const accepted = allow ? `; this path accepts ${allow.split(/\s*,\s*/).join(', ')}` : '';
      return { status: 405, message: `Method not allowed: ${request?.method ?? 'this method'}${accepted}`, headers: { Allow: allow } };
    }
    default:
      return { status: 500, message: STANDARD_MESSAGES[500] };
  }
}

/**
 * Marks a request as one of the `/messages` operations, whose errors take `MessagesErrorBody`. Mounted on the
 * messages paths before anything can fail there (a 401, a validation error, a 405), so the shape follows the
 * operation rather than a pattern over the URL.
 */
export const useMessagesErrorShape: RequestHandler = (_req, res, next) => {
  res.locals.messagesErrorShape = true;
  res.locals.anthropicErrorShape = true;
  next();
};

/**
 * Marks a request as one of the models operations, which Anthropic SDKs call (`client.models.list()`,
 * `retrieve()`) and whose errors therefore take `MessagesErrorBody` too. Only the shape: the `/messages`-only
 * steps that read `messagesErrorShape` stay off.
 */
export const useAnthropicErrorShape: RequestHandler = (_req, res, next) => {
  res.locals.anthropicErrorShape = true;
  next();
};

/**
 * The 404 of a path the spec does not have, in Anthropic's shape (a superset of `ErrorBody`): Anthropic SDKs
 * call endpoints of Anthropic's API the gateway does not serve (files, skills) and read the error's type.
 */
export const unknownPath: RequestHandler = (req, res, next) => {
  res.locals.anthropicErrorShape = true;
  next(new NotFoundError(unknownPathMessage(req.method, req.path)));
};

/**
 * The parameter list as Anthropic's `error.details`: an object keyed by `error_code`, which Anthropic SDKs read
 * as `APIError.errorCode` (a list there is neither an object nor a code, and strictly typed SDKs refuse it).
 */
export function toMessagesErrorDetails(details: ErrorDetail[]): MessagesErrorDetails {
  return { error_code: 'invalid_request_parameters', parameters: details };
}

/**
 * Writes a rendered error in the shape of the operation the request was made on, named by its `request-id`
 * header (and, in Anthropic's shape, its `request_id`).
 */
export function sendError(res: Response, rendered: RenderedError): void {
  const { status, message, details } = rendered;
  const listed = details && details.length > 0 ? details : undefined;
  for (const [name, value] of Object.entries(rendered.headers ?? {})) res.setHeader(name, value);
  if (res.locals.anthropicErrorShape === true) {
    const extra = rendered.errorCode ? { details: { error_code: rendered.errorCode } } : listed ? { details: toMessagesErrorDetails(listed) } : {};
    const body: MessagesErrorBody = { type: 'error', error: { type: anthropicErrorType(status), code: status, message, ...extra }, request_id: requestIdOf(res) };
    res.status(status).json(body);
  } else {
    // The management API's own format keeps the plain list its generated clients read; the answer's id, set in
    // `request-id` by `requestIdOf`, stays out of a body whose shape those clients fix.
    requestIdOf(res);
    const body: ErrorBody = { error: { code: status, message, ...(listed ? { details: listed } : {}) } };
    res.status(status).json(body);
  }
}

/** The error middleware: logs what the client must not see, renders what it may. */
export function createErrorMiddleware(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    const rendered = toRenderedError(error, req);
    // The validator's 404 is a path the spec does not have, answered as `unknownPath` answers the others.
    if (isValidatorError(error) && error.status === 404) res.locals.anthropicErrorShape = true;
    // The id the answer names, in the log line too, so a client's report of it finds the line.
    const named = res.headersSent ? {} : { request_id: requestIdOf(res) };
    if (rendered.status === 503 || rendered.status === 504 || rendered.status === 529) {
      logger.warn('request answered 503', { method: req.method, path: req.path, ...named, message: rendered.message, error });
    } else if (rendered.status >= 500) {
      logger.error('request failed', { method: req.method, path: req.path, ...named, error });
    } else {
      logger.debug('request rejected', { method: req.method, path: req.path, ...named, status: rendered.status, message: rendered.message });
    }
    if (res.headersSent) {
      // A body refused as too large was answered already; the parser's own complaint about it is expected.
      if (res.locals.bodyRefused === true) return;
      return next(error);
    }
    sendError(res, rendered);
  };
}
