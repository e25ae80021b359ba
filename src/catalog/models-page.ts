/**
 * One page of `GET /models`, chosen by Anthropic's paging parameters (`after_id`, `before_id`, `limit`) and
 * given in Anthropic's envelope (`has_more`, `first_id`, `last_id`), so the Anthropic SDKs' `models.list()`
 * and its auto-pagination work against the gateway. A pure function over the catalog's models, in their order.
 * @see ModelList in openapi/components/schemas/models.yaml
 */
import type { Model, ModelList } from '#src/api-types.ts';

/** The paging parameters of `GET /models`, as the validator has checked them. */
export interface ModelsPageQuery {
  afterId?: string | undefined;
  beforeId?: string | undefined;
  /** Without one, the page holds every model in the direction asked for. */
  limit?: number | undefined;
}

/** A client's paging mistake, for a 400. */
export interface ModelsPageProblem {
  parameter: 'after_id' | 'before_id';
  message: string;
}

/** The envelope around `data`: the whole catalog when nothing narrows it. */
export function modelsEnvelope(data: readonly Model[], hasMore: boolean): ModelList {
  return { data: [...data], has_more: hasMore, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
}

/**
 * The page a query asks for, or the problem with the query. `after_id` pages forwards (the page starts right
 * after that model); `before_id` backwards (it ends right before it, and `has_more` says whether models come
 * before the page), as Anthropic's cursors do.
 */
export function pageModels(models: readonly Model[], query: ModelsPageQuery): ModelList | ModelsPageProblem {
  const { afterId, beforeId, limit } = query;
  if (afterId !== undefined && beforeId !== undefined) return { parameter: 'after_id', message: 'give after_id or before_id, not both' };
  const cursor = afterId ?? beforeId;
  const position = cursor === undefined ? -1 : models.findIndex((model) => model.id === cursor);
  if (cursor !== undefined && position < 0) {
    const parameter = afterId !== undefined ? 'after_id' : 'before_id';
    return { parameter, message: `${parameter} names no model of the catalog: ${cursor}` };
  }
  if (beforeId !== undefined) {
    const start = limit === undefined ? 0 : Math.max(0, position - limit);
    return modelsEnvelope(models.slice(start, position), start > 0);
  }
  const start = position + 1;
  const end = limit === undefined ? models.length : Math.min(models.length, start + limit);
  return modelsEnvelope(models.slice(start, end), end < models.length);
}
