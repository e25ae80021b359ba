/** Every built-in model, grouped by vendor file. Data only; the loader validates and indexes it. */
import type { ModelData } from '#src/catalog/catalog-types.ts';
import { ANTHROPIC_API_ONLY_MODELS } from './anthropic-api-only-models.ts';
import { ANTHROPIC_MODELS } from './anthropic-models.ts';
import { ANTHROPIC_5_5_MODELS } from './anthropic-5-5-models.ts';
import { GOOGLE_MODELS } from './google-models.ts';
import { OPEN_WEIGHT_MODELS } from './open-weight-models.ts';
import { OPENAI_MODELS } from './openai-models.ts';
import { OTHER_MODELS } from './other-models.ts';

/** The built-in catalog's models. */
export const BUILT_IN_MODELS: readonly ModelData[] = [
  ...ANTHROPIC_MODELS,
  ...ANTHROPIC_5_5_MODELS,
  ...ANTHROPIC_API_ONLY_MODELS,
  ...OPENAI_MODELS,
  ...GOOGLE_MODELS,
  ...OPEN_WEIGHT_MODELS,
  ...OTHER_MODELS,
];
