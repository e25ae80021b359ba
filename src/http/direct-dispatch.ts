/**
 * One operation (`POST /api/v1/messages`) dispatched without express's router walk. For every request
 * express's router matches each `app.use` layer's path (path-to-regexp), trims and restores `req.url` around
 * mounted layers, enters the API router and walks its routes, and allocates closures for each of these
 * steps: `router` self 3.3% and path-to-regexp `match` 0.5% of the gateway's CPU on `POST /messages`
 * (V8 profile, JSON, 64 connections, 2026-11-26). None of it depends on the request once its method and
 * path are known. With this chain (and src/http/send-json.ts) the same profile shows router, path-to-regexp
 * and content-type at 0 (from 3.1%, 0.4% and 0.8%), express itself at 0.3% (from 1.9%), this file at 0.8%.
 * Under callgrind (bench/instructions.ts, PostgreSQL) the quietest paired run went from 0.78 to 0.68 M
 * instructions per JSON request (0.64 → 0.59 M without GC and compiler; five pairs: 0.69 → 0.64 M on
 * average), streams within the noise (0.86 → 0.83 M in that run).
 *
 * So the application builds, once, the fixed chain express would run for this operation: the same
 * middleware functions in the same order, then the route's handler, then the application's 404, with any
 * error going to the same error middleware, and, if that passes it on, to express's own final handler. A
 * plain index walks the chain. Each step sees what express's `app.handle` and router would have given it:
 * `req.res`, `res.req`, `res.locals`, `req.next`, `req.params`, `req.originalUrl`, and `req.url`/`req.baseUrl`
 * trimmed under the step's mount path (`/api/v1/messages` for the generation id, `/api/v1` for the route)
 * and restored afterwards. Not set: `req.route` and the router's matched-route symbol, which nothing here
 * reads. Middleware that provably does nothing for the operation (method semantics acts on HEAD and OPTIONS
 * only) is left out by the application.
 *
 * Only a request express would route exactly so takes the chain: the operation's method, its path exactly
 * (a query allowed; a trailing slash or another case goes to express), request and response already born
 * with the application's prototypes (src/http/express-messages.ts), and nobody subscribed to the router's
 * tracing channel (whose subscribers see each layer). Everything else goes to the application as before.
 * The chain's steps never pass `'route'` or `'router'` to `next`; any other truthy value is an error, as in
 * express.
 */
import { createRequire } from 'node:module';
import { tracingChannel } from 'node:diagnostics_channel';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from 'express';

/** One step of the chain: a middleware, or the route's handler, and where express mounts it. */
export interface DirectStep {
  handle: RequestHandler;
  /** The path express mounts the step under (`app.use(path, …)`, or the mount path of the route's router). */
  mountPath?: string;
}

/** The operation and the chain express would run for it. */
export interface DirectOperation {
  method: string;
  /** The operation's path as the application sees it (prefix included), without a query. */
  url: string;
  /** Every application-level step that acts on the operation, in express's order, the route's handler included. */
  steps: readonly DirectStep[];
  /** The application's error middleware. */
  errorHandler: ErrorRequestHandler;
}

type FinalHandler = (req: IncomingMessage, res: ServerResponse, options: { env: string; onerror: (error: unknown) => void }) => (error?: unknown) => void;

// Express's own final handler (its dependency), for an error the error middleware passes on, as `app.handle` uses it.
const finalhandler = createRequire(createRequire(import.meta.url).resolve('express'))('finalhandler') as FinalHandler;
// The router publishes each layer's call here when someone listens; the chain has no layers to publish.
const routerTracing = tracingChannel('express.router.request');
const SLASH = 0x2f;
const QUESTION_MARK = 0x3f;

/** The operation, and what express's final handler is given. */
interface Chain extends DirectOperation {
  env: string;
  onerror: (error: unknown) => void;
}

/** One request's walk along the chain. */
interface Run {
  chain: Chain;
  req: Request;
  res: Response;
  /** The next step; `steps.length` is the error middleware, beyond it the final handler. */
  index: number;
  next: NextFunction;
}

/** `url` as express presents it to a layer mounted at `mountPath`: the mount path removed, a leading slash kept. */
function mountedUrl(url: string, mountPath: string): string {
  const rest = url.slice(mountPath.length);
  return rest.charCodeAt(0) === SLASH ? rest : `/${rest}`;
}

function call(run: Run, step: DirectStep): void {
  const { req, res } = run;
  if (step.mountPath !== undefined) {
    req.baseUrl = step.mountPath;
    req.url = mountedUrl(req.originalUrl, step.mountPath);
  }
  try {
    const result: unknown = step.handle(req, res, run.next);
    if (result instanceof Promise) result.then(undefined, (reason: unknown) => run.next(reason || new Error('Rejected promise')));
  } catch (error) {
    run.next(error);
  }
}

function callErrorHandler(run: Run, error: unknown): void {
  const { req, res } = run;
  req.params = {};
  try {
    const result: unknown = run.chain.errorHandler(error, req, res, run.next);
    if (result instanceof Promise) result.then(undefined, (reason: unknown) => run.next(reason || new Error('Rejected promise')));
  } catch (thrown) {
    run.next(thrown);
  }
}

/** `next` of every step: the following step, or, with an error, the error middleware, then the final handler. */
function advance(run: Run, error: unknown): void {
  const { req } = run;
  // Back at the application's level, as express's router restores a mounted layer's URL when it calls next.
  if (req.baseUrl !== '') {
    req.baseUrl = '';
    req.url = req.originalUrl;
  }
  const { steps } = run.chain;
  if (run.index < steps.length && !error) {
    call(run, steps[run.index++] as DirectStep);
  } else if (run.index <= steps.length && error) {
    run.index = steps.length + 1;
    callErrorHandler(run, error);
  } else {
    // Express's router reaches its end and calls the final handler in the next turn of the event loop.
    run.index = steps.length + 1;
    setImmediate(finish, run, error);
  }
}

function finish(run: Run, error: unknown): void {
  const { req, res, chain } = run;
  finalhandler(req, res, { env: chain.env, onerror: chain.onerror })(error);
}

/**
 * The server's request listener: `operation`'s requests through its chain, every other request through `app`.
 * Build it once, after every step is mounted on `app`.
 */
export function createDirectDispatch(app: Express, operation: DirectOperation): RequestListener {
  if (app.enabled('x-powered-by')) throw new Error('direct dispatch: the application sets X-Powered-By, which the chain does not');
  const env = app.get('env') as string;
  const chain: Chain = {
    ...operation,
    env,
    // Express's `logerror`: what the final handler reports, outside tests.
    onerror: (error) => {
      if (env !== 'test') console.error(error);
    },
  };
  const prefixLength = operation.url.length;

  function takes(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url ?? '';
    return (
      req.method === operation.method &&
      (url === operation.url || (url.startsWith(operation.url) && url.charCodeAt(prefixLength) === QUESTION_MARK)) &&
      Object.getPrototypeOf(req) === app.request &&
      Object.getPrototypeOf(res) === app.response &&
      !routerTracing.hasSubscribers
    );
  }

  return function dispatch(incoming, outgoing) {
    if (!takes(incoming, outgoing)) {
      app(incoming, outgoing);
      return;
    }
    // What express's `app.handle` and its router set before the first layer.
    const req = incoming as Request;
    const res = outgoing as Response;
    req.res = res;
    res.req = req;
    if (!res.locals) res.locals = Object.create(null) as Response['locals'];
    req.baseUrl = '';
    req.originalUrl ||= req.url;
    req.params = {};
    // The one function made per request: `next` has to know its request.
    const run: Run = { chain, req, res, index: 0, next: (error?: unknown) => advance(run, error) };
    req.next = run.next;
    advance(run, undefined);
  };
}
