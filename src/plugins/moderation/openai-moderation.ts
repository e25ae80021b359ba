/**
 * Screening through OpenAI's moderation endpoint (`POST /moderations`) with the official `openai` SDK (loaded
 * on the first screening), reached through a catalog provider's base URL and the gateway's shared key for it.
 * The SDK retries nothing: a failure is the plugin's to handle (fail open or closed). Long texts are cut into
 * pieces, and pieces passed before are not sent again (moderation-pieces.ts).
 * @see https://developers.openai.com/api/reference/resources/moderations
 */
import type { OpenAI } from 'openai';
import type { CatalogProvider } from '#src/catalog/catalog-types.ts';
import type { ModerationConfig } from '#src/plugins/plugins-config.ts';
import type { ModerationVerdict } from '#src/plugins/moderation/moderation-verdict.ts';
import { inGroups, piecesToScreen, runBounded, type PassedPieces } from '#src/plugins/moderation/moderation-pieces.ts';

/** One input's result as the endpoint answers it (the fields the verdict reads). */
export interface ModerationResult {
  flagged: boolean;
  categories: Record<string, boolean | null>;
  category_scores: Record<string, number>;
}

/** SDK clients by provider slug, one set per gateway (built on the first screening, reused after). */
export type ModerationClients = Map<string, OpenAI>;

let sdk: Promise<typeof import('openai')> | undefined;

async function clientFor(clients: ModerationClients, provider: CatalogProvider, config: ModerationConfig): Promise<OpenAI> {
  const existing = clients.get(provider.slug);
  if (existing) return existing;
  if (!provider.baseUrl) throw new Error(`the provider ${provider.slug} has no base URL`);
  const key = provider.sharedKey?.reveal();
  if (!key && provider.auth !== 'none') throw new Error(`the gateway has no key for ${provider.slug}`);
  sdk ??= import('openai');
  const { OpenAI: Client } = await sdk;
  const client = new Client({ apiKey: key || 'none', baseURL: provider.baseUrl, maxRetries: 0, timeout: config.timeoutMs });
  clients.set(provider.slug, client);
  return client;
}

/** The verdict on a set of results: flagged when any is, with the flagged category of the highest score. */
export function verdictOfResults(results: readonly ModerationResult[], model: string): ModerationVerdict {
  const flagged = results.filter((result) => result.flagged);
  if (flagged.length === 0) return { flagged: false, category: null, explanation: 'The input was not flagged.' };
  const scores = new Map<string, number>();
  for (const result of flagged) {
    for (const [category, hit] of Object.entries(result.categories)) {
      if (hit === true) scores.set(category, Math.max(scores.get(category) ?? 0, result.category_scores[category] ?? 0));
    }
  }
  const ranked = [...scores].sort((left, right) => right[1] - left[1]).map(([category]) => category);
  const named = ranked.length > 0 ? ranked.join(', ') : 'unspecified';
  return { flagged: true, category: ranked[0] ?? null, explanation: `The input was flagged by moderation (${model}: ${named}) and was not sent to any model.` };
}

/**
 * Screens the texts' pieces not passed before (moderation-pieces.ts), in calls of a bounded number of inputs,
 * a few under way at once under the one signal, and remembers the pieces that pass; throws when a call fails
 * or the endpoint cannot be reached.
 */
export async function screenWithOpenAi(options: {
  texts: string[];
  config: ModerationConfig;
  provider: CatalogProvider;
  clients: ModerationClients;
  passed: PassedPieces;
  accountId: string;
  signal: AbortSignal;
}): Promise<ModerationVerdict> {
  const { config, passed, signal } = options;
  const pending = piecesToScreen(options.texts, passed, options.accountId, config.model);
  if (pending.length === 0) return verdictOfResults([], config.model);
  const client = await clientFor(options.clients, options.provider, config);
  const groups = inGroups(pending);
  const run = await runBounded(groups, async (group) => {
    const answer = await client.moderations.create({ model: config.model, input: group.map((piece) => piece.text) }, { signal });
    if (!Array.isArray(answer.results) || answer.results.length !== group.length) throw new Error('the moderation endpoint answered a result list of the wrong length');
    return answer.results as unknown as ModerationResult[];
  });
  if (run.failure) throw run.failure.error;
  // Every call answered (none failed, none is stopped early): the results are the pending pieces', in order.
  const results = run.results.flatMap((answers) => answers ?? []);
  pending.forEach((piece, index) => {
    if (results[index]?.flagged === false) passed.add(piece.digest);
  });
  return verdictOfResults(results, config.model);
}
