/**
 * HEAD and OPTIONS on the API's paths, as a production HTTP API answers them (RFC 9110, sections 9.3.2 and
 * 9.3.7), with every path and its methods read once from the bundled spec:
 *
 * - `HEAD` is allowed wherever `GET` is, and answers exactly what `GET` would (status, headers, authentication
 *   and errors included) without the body: the request is handed on as a `GET`, and node leaves the body out
 *   of a response to a `HEAD` request. Where the path has no `GET`, it is a 405 like any other method.
 * - `OPTIONS` answers 204 with `Allow` on every path the spec documents, before authentication (it tells only
 *   what the published spec does). No CORS headers are sent: browsers are not the gateway's clients, since a
 *   page would have to hold a gateway key.
 * - `Allow` (here and on every 405) lists the spec's methods, `HEAD` where `GET` is, and `OPTIONS`, in one fixed
 *   order (GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS).
 *
 * Any other method, and any path the spec does not document, goes on untouched (the validator answers 405 or
 * 404). The spec documents this in its description (Methods).
 */
import type { RequestHandler } from 'express';
import { readSpec } from '#src/http/bundled-spec.ts';

const SPEC_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'trace'];

// One order for every `Allow`, whichever order the spec or the validator lists a path's methods in.
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'OPTIONS'];

/** The methods a path with these spec methods allows, in the order `Allow` lists them. */
export function allowedMethods(specMethods: readonly string[]): string[] {
  const upper = new Set(specMethods.map((method) => method.toUpperCase()));
  if (upper.has('GET')) upper.add('HEAD');
  upper.add('OPTIONS');
  return ORDER.filter((method) => upper.has(method));
}

/** An `Allow` value as the validator gives it on a 405 (the spec's methods), with `HEAD` and `OPTIONS` added. */
export function withImpliedMethods(allow: string): string {
  const methods = allow.split(/\s*,\s*/).filter(Boolean);
  return methods.length === 0 ? '' : allowedMethods(methods).join(', ');
}

/** One path of the spec. */
export interface PathEntry {
  /** The documented path with the prefix, its parameters as `{name}` (`/api/v1/byok/{id}`). */
  template: string;
  /** The path exactly: case-sensitive, no trailing slash, a `{parameter}` one non-empty segment. */
  pattern: RegExp;
  /** The path as express matches by default (any case, a trailing slash allowed): what a near miss matches. */
  loosePattern: RegExp;
  allow: string;
  hasGet: boolean;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The spec's paths under `prefix` as patterns (a `{parameter}` is one path segment), each with its `Allow`. */
export function readPathTable(specPath: string, prefix: string): PathEntry[] {
  const document = readSpec(specPath) as { paths?: Record<string, Record<string, unknown>> };
  return Object.entries(document.paths ?? {}).map(([template, item]) => {
    const methods = Object.keys(item).filter((key) => SPEC_METHODS.includes(key));
    const source = template
      .split(/\{[^}]+\}/)
      .map(escapeRegExp)
      .join('[^/]+');
    // The application routes paths exactly (src/http/exact-paths.ts): another case or a trailing slash is a 404.
    return {
      template: `${prefix}${template}`,
      pattern: new RegExp(`^${escapeRegExp(prefix)}${source}$`),
      loosePattern: new RegExp(`^${escapeRegExp(prefix)}${source}/?$`, 'i'),
      allow: allowedMethods(methods).join(', '),
      hasGet: methods.includes('get'),
    };
  });
}

/** The middleware; mounted before the spec validator. */
export function createMethodSemantics(specPath: string, prefix: string): RequestHandler {
  const table = readPathTable(specPath, prefix);
  return (req, res, next) => {
    if (req.method !== 'HEAD' && req.method !== 'OPTIONS') {
      next();
      return;
    }
    const entry = table.find((candidate) => candidate.pattern.test(req.path));
    if (!entry) {
      next();
      return;
    }
    if (req.method === 'OPTIONS') {
      res.setHeader('Allow', entry.allow);
      res.status(204).end();
      return;
    }
    // Validated, authenticated and routed as the GET it stands for; node sends no body for a HEAD request.
    if (entry.hasGet) req.method = 'GET';
    next();
  };
}
