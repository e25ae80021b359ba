/**
 * Paths are matched exactly, as Anthropic's API matches them: case-sensitively and without a trailing slash.
 * Express's defaults would serve `/api/v1/Messages` and `/api/v1/messages/` as `/api/v1/messages`, which made
 * a typo in a client's configuration work by accident on this gateway and fail on Anthropic's API (and the
 * other way round for a client that relies on it). The application turns both of express's defaults off, and
 * this step answers a near miss (a documented path in another case, or with a trailing slash) before
 * authentication with a 404 that names the documented path, so the client sees its mistake rather than a bare
 * "not found". Clients whose base URL ends in a slash are not affected: the Anthropic SDKs and Claude Code join
 * `…/api/` and `/v1/messages` without doubling the slash.
 */
import type { RequestHandler } from 'express';
import { NotFoundError } from '#src/errors.ts';
import { readPathTable, type PathEntry } from '#src/http/method-semantics.ts';

// A path is named in a message; an absurdly long one is cut rather than echoed whole.
const SHOWN_PATH_LENGTH = 200;

function shown(path: string): string {
  return path.length > SHOWN_PATH_LENGTH ? `${path.slice(0, SHOWN_PATH_LENGTH)}…` : path;
}

/**
 * The documented path a near miss stands for: the template's own segments as the spec writes them, the
 * parameters' segments as sent, no trailing slash. Pure.
 */
export function intendedPath(path: string, entry: Pick<PathEntry, 'template'>): string {
  const sent = path.replace(/\/$/, '').split('/');
  return entry.template
    .split('/')
    .map((segment, index) => (segment.startsWith('{') ? (sent[index] ?? segment) : segment))
    .join('/');
}

/** The message of a 404 for a path the spec does not have; `intended` is the documented path it resembles. */
export function unknownPathMessage(method: string, path: string, intended?: string): string {
  const base = `Not found: ${method} ${shown(path)} is not a path of this API`;
  if (intended === undefined) return base;
  return `${base} (paths are case-sensitive and end without a slash): did you mean ${shown(intended)}?`;
}

/**
 * The middleware: a near miss of a documented path is a 404 naming it; every other request goes on. A near
 * miss makes no generation, even of a `/messages` path: its answer names itself in `request-id` alone, as
 * every other unknown path's does.
 */
export function createExactPaths(specPath: string, prefix: string): RequestHandler {
  const table = readPathTable(specPath, prefix);
  return (req, res, next) => {
    const path = req.path;
    if (table.some((entry) => entry.pattern.test(path))) {
      next();
      return;
    }
    const nearMiss = table.find((entry) => entry.loosePattern.test(path));
    if (!nearMiss) {
      next();
      return;
    }
    // In Anthropic's shape, as every unknown path (`unknownPath`): an Anthropic SDK reads its type.
    res.locals.anthropicErrorShape = true;
    next(new NotFoundError(unknownPathMessage(req.method, path, intendedPath(path, nearMiss))));
  };
}
