/** `GET /models`: the catalog of models, their endpoints and prices. The body is built once with the catalog. */
import type { Router } from 'express';
import type { Catalog } from '#src/catalog/index.ts';

/** Dependencies of the models route. */
export interface ModelsRouteDeps {
  catalog: Catalog;
}

/** Binds `GET /models`. */
export function bindGetModelsRoute(router: Router, deps: ModelsRouteDeps): void {
  const body = JSON.stringify(deps.catalog.modelList);
  router.get('/models', (_req, res) => {
    res.type('application/json').send(body);
  });
}
