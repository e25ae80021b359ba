/**
 * `GET /models` and `GET /models/{model_id}`: the catalog of models, their endpoints and prices, paged as
 * Anthropic's `GET /v1/models` is, and one model of it. The bodies without paging are built once with the
 * catalog.
 */
import type { Request, Router } from 'express';
import type { Catalog } from '#src/catalog/index.ts';
import { pageModels } from '#src/catalog/models-page.ts';
import { BadRequestError, NotFoundError } from '#src/errors.ts';
import { integerQuery } from '#src/routes/pagination.ts';

/** Dependencies of the models routes. */
export interface ModelsRouteDeps {
  catalog: Catalog;
  /** The catalog slug a model name gives, aliases included (a bare Anthropic id); without it, slugs only. */
  modelSlug?: (name: string) => string | undefined;
}

function stringQuery(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === 'string' ? value : undefined;
}

/** Binds `GET /models` and `GET /models/{model_id}`. */
export function bindGetModelsRoute(router: Router, deps: ModelsRouteDeps): void {
  const models = deps.catalog.modelList.data;
  const body = JSON.stringify(deps.catalog.modelList);
  const modelBodies = new Map(models.map((model) => [model.id, JSON.stringify(model)]));
  router.get('/models', (req, res) => {
    const query = { afterId: stringQuery(req, 'after_id'), beforeId: stringQuery(req, 'before_id'), limit: req.query.limit === undefined ? undefined : integerQuery(req, 'limit', 0) };
    if (query.afterId === undefined && query.beforeId === undefined && query.limit === undefined) {
      res.type('application/json').send(body);
      return;
    }
    const page = pageModels(models, query);
    if ('parameter' in page) throw new BadRequestError(page.message, { details: [{ path: `/query/${page.parameter}`, message: page.message }] });
    res.json(page);
  });
  router.get('/models/:model_id', (req, res) => {
    const modelId = String(req.params.model_id);
    // As Anthropic's retrieve resolves an alias to its model, and as /messages accepts it.
    const modelBody = modelBodies.get(modelId) ?? modelBodies.get(deps.modelSlug?.(modelId) ?? '');
    if (modelBody === undefined) throw new NotFoundError(`The catalog has no model ${modelId} (GET /models lists them)`);
    res.type('application/json').send(modelBody);
  });
}
