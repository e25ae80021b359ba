/** `GET /generations/{id}`: one generation record of the caller's account. */
import type { Router } from 'express';
import type { GenerationEnvelope } from '#src/api-types.ts';
import { callerOf } from '#src/http/caller.ts';
import type { GenerationRouteDeps } from '#src/routes/get-generations.ts';

/** Binds `GET /generations/{id}`. */
export function bindGetGenerationByIdRoute(router: Router, deps: GenerationRouteDeps): void {
  router.get('/generations/:id', async (req, res) => {
    const body: GenerationEnvelope = { data: await deps.generations.get(callerOf(res), req.params.id) };
    res.json(body);
  });
}
