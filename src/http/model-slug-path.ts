/**
 * `GET /models/{model_id}` with a model slug's `/` written as is (`/models/anthropic/claude-sonnet-4.5`, as curl
 * users write it). The validator and the router match one path segment per parameter, so before them such a
 * path is rewritten to the percent-encoded form the Anthropic SDKs send (`anthropic%2Fclaude-sonnet-4.5`).
 * @see ModelId in openapi/components/parameters/management.yaml
 */
import type { RequestHandler } from 'express';

/**
 * The URL with the slash between the two segments after `modelsPath` encoded, or the URL unchanged when the
 * path holds anything but exactly two non-empty segments there (a deeper path stays unknown). Pure.
 */
export function encodeModelSlugSlash(url: string, modelsPath: string): string {
  if (!url.startsWith(modelsPath)) return url;
  const queryStart = url.indexOf('?');
  const path = queryStart < 0 ? url : url.slice(0, queryStart);
  const segments = path.slice(modelsPath.length).split('/');
  if (segments.length !== 2 || segments[0] === '' || segments[1] === '') return url;
  return `${modelsPath}${segments[0]}%2F${segments[1]}${queryStart < 0 ? '' : url.slice(queryStart)}`;
}

/** Rewrites a slug path under `<apiPrefix>/models/` before validation and routing (see the module's head). */
export function createModelSlugPath(apiPrefix: string): RequestHandler {
  const modelsPath = `${apiPrefix}/models/`;
  return (req, _res, next) => {
    const url = encodeModelSlugSlash(req.url, modelsPath);
    if (url !== req.url) {
      req.url = url;
      // express-openapi-validator matches its routes on originalUrl, not url.
      req.originalUrl = url;
    }
    next();
  };
}
