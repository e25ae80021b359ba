/**
 * `GET /models` and `GET /models/{model_id}`: the catalog of models, their endpoints and prices, paged as
 * Anthropic's `GET /v1/models` is, and one model of it. The bodies without paging are serialized once for
 * each list the catalog builds (a new one only when an endpoint retires).
 */
import type { Request, Router } from 'express';
import type { Model, ModelList } from '#src/api-types.ts';
import type { Catalog } from '#src/catalog/index.ts';
import { pageModels } from '#src/catalog/models-page.ts';
import { BadRequestError, NotFoundError } from '#src/errors.ts';
import { integerQuery } from '#src/routes/pagination.ts';

/** Dependencies of the models routes. */
export interface ModelsRouteDeps {
  catalog: Catalog;
  /** The catalog slug a model name gives, aliases included (a bare Anthropic id); without it, slugs only. */
  modelSlug?: (name: string) => string | undefined;
  /** The clock (epoch milliseconds) that models' and endpoints' `lifecycle` is read at; default `Date.now`. */
  now?: () => number;
}

/** The bodies without paging, serialized once for each list the catalog builds. */
interface ListBodies {
  models: readonly Model[];
  body: string;
  modelBodies: ReadonlyMap<string, string>;
}

function serialize(list: ModelList): ListBodies {
  return { models: list.data, body: JSON.stringify(list), modelBodies: new Map(list.data.map((model) => [model.id, JSON.stringify(model)])) };
}

function stringQuery(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === 'string' ? value : undefined;
}

/** Binds `GET /models` and `GET /models/{model_id}`. */
export function bindGetModelsRoute(router: Router, deps: ModelsRouteDeps): void {
  const now = deps.now ?? Date.now;
  const serialized = new WeakMap<ModelList, ListBodies>();
  const current = (): ListBodies => {
    const list = deps.catalog.modelListAt(now());
    let bodies = serialized.get(list);
    if (bodies === undefined) serialized.set(list, (bodies = serialize(list)));
    return bodies;
  };
  router.get('/models', (req, res) => {
    const { models, body } = current();
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
    const { modelBodies } = current();
    const modelBody = modelBodies.get(modelId) ?? modelBodies.get(deps.modelSlug?.(modelId) ?? '');
    if (modelBody === undefined) throw new NotFoundError(`The catalog has no model ${modelId} (GET /models lists them)`);
    res.type('application/json').send(modelBody);
  });
}
