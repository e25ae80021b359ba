/**
 * The `thinkingLevel`s each Gemini 3-and-later model accepts, and the nearest of them to what a client asked.
 * `@ai-sdk/google` offers every Gemini 3 Pro `low`/`medium`/`high`, but Google refuses `medium` on Gemini 3
 * Pro with a 400 (`Thinking level MEDIUM is not supported for this model. Please retry with other thinking
 * level.`). The package falls back from a level it does not list to the next lower one (`xhigh` and `max` to
 * `high`, `none` to the least); this table makes the level sent, and its warning, the gateway's own. Pure.
 * @see https://ai.google.dev/gemini-api/docs/gemini-3#thinking_level
 */
import type { PortableReasoning } from '#src/providers/ai-sdk/convert-to-ai-sdk-reasoning.ts';

/** A Gemini `thinkingLevel`, in the AI SDK's lowercase spelling. */
export type GeminiThinkingLevel = 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/** One model family's accepted levels, least thinking first. */
export interface GeminiLevelFamily {
  family: string;
  /** Tested against the model's name (any `models/` or publisher prefix removed), lowercased. */
  pattern: RegExp;
  levels: readonly GeminiThinkingLevel[];
}

/**
 * The families, first match wins. Gemini 3 Pro takes `low` and `high` only; 3.1 Pro added `medium` but, like
 * every Pro, not `minimal`; Flash and Flash-Lite take `minimal` to `high`. `minimal` ends for Flash from 3.7
 * and for `gemini-flash-latest`, and Gemini 4 Hydrogen adds `xhigh`, as `@ai-sdk/google` lists them (Google's
 * pages do not yet). The last row is the AI SDK's default for a versioned model of generation 3 or later.
 */
export const GEMINI_LEVEL_FAMILIES: readonly GeminiLevelFamily[] = [
  { family: 'Gemini 3 Pro', pattern: /^gemini-3-pro(?:$|-)/, levels: ['low', 'high'] },
  { family: 'Gemini 4 Hydrogen', pattern: /^gemini-4-hydrogen(?:$|-)/, levels: ['low', 'medium', 'high', 'xhigh'] },
  { family: 'Gemini Pro from 3.1', pattern: /^gemini-\d+(?:\.\d+)?-pro(?:$|-)/, levels: ['low', 'medium', 'high'] },
  { family: 'Gemini Flash from 3.7', pattern: /^gemini-(?:flash-latest$|(?:[4-9]|\d{2,})\.\d+-flash(?!-lite)|3\.(?:[7-9]|\d{2,})-flash(?!-lite))/, levels: ['low', 'medium', 'high'] },
  { family: 'Gemini 3 Flash and Flash-Lite', pattern: /^gemini-/, levels: ['minimal', 'low', 'medium', 'high'] },
];

/** The levels a level-steered Gemini model accepts (see `GEMINI_LEVEL_FAMILIES`). */
export function geminiThinkingLevels(modelId: string): readonly GeminiThinkingLevel[] {
  const name = (/(?:^|[/.])(gemini-[^/]*)$/i.exec(modelId)?.[1] ?? modelId).toLowerCase();
  return (GEMINI_LEVEL_FAMILIES.find(({ pattern }) => pattern.test(name)) ?? GEMINI_LEVEL_FAMILIES.at(-1)!).levels;
}

// How much thinking each ask stands for: `none` below any level, `max` above any.
const RANK: Readonly<Record<Exclude<PortableReasoning, 'provider-default'>, number>> = {
  none: -1,
  minimal: 0,
  low: 1,
  medium: 2,
  high: 3,
  xhigh: 4,
  max: 5,
};

/**
 * The accepted level nearest to `asked`: itself when accepted; `none` the least level (no Gemini 3 Pro can
 * stop thinking, and the least is closer than Google's default `high`); `xhigh` and `max` the highest; a level
 * between two accepted ones the higher (Gemini 3 Pro's `medium` is `high`, its default, rather than a cut to
 * `low` the client did not ask for). `provider-default` is not a level and stays as it is.
 */
export function nearestGeminiLevel(asked: PortableReasoning, levels: readonly GeminiThinkingLevel[]): PortableReasoning {
  if (asked === 'provider-default' || (levels as readonly string[]).includes(asked)) return asked;
  const distance = (level: GeminiThinkingLevel) => Math.abs(RANK[level] - RANK[asked]);
  // `<=` over the levels in ascending order: of two as near, the higher wins.
  return levels.reduce<GeminiThinkingLevel | undefined>((best, level) => (best === undefined || distance(level) <= distance(best) ? level : best), undefined) ?? asked;
}
