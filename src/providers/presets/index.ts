/**
 * Every built-in provider preset. A preset is data only; adding an OpenAI-compatible vendor means adding one
 * short file here (or one `providers:` entry with `family: openai-compatible` in the configuration file).
 */
import type { ProviderPreset } from '#src/catalog/catalog-types.ts';
import { anthropic } from './anthropic.ts';
import { azure } from './azure.ts';
import { bedrock } from './bedrock.ts';
import { cerebras } from './cerebras.ts';
import { deepseek } from './deepseek.ts';
import { fireworks } from './fireworks.ts';
import { google } from './google.ts';
import { groq } from './groq.ts';
import { mistral } from './mistral.ts';
import { ollama } from './ollama.ts';
import { openai } from './openai.ts';
import { openrouter } from './openrouter.ts';
import { perplexity } from './perplexity.ts';
import { together } from './together.ts';
import { vllm } from './vllm.ts';
import { xai } from './xai.ts';

/** The built-in providers, in the order `GET /models` lists their endpoints. */
export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  anthropic,
  openai,
  google,
  bedrock,
  azure,
  deepseek,
  mistral,
  xai,
  groq,
  together,
  fireworks,
  cerebras,
  perplexity,
  openrouter,
  ollama,
  vllm,
];
