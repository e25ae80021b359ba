/**
 * A cheap, documented estimate of how hard a prompt is and how long it is, for the auto-router. No model is
 * called: the heuristic reads only the request.
 */
import type { MessageRequest } from '#src/api-types.ts';
import { requestText, requestsThinking } from '#src/routing/request-parameters.ts';
import { estimateInputTokens } from '#src/request/estimate-input-tokens.ts';
import { requestedEffort } from '#src/request/requested-effort.ts';
import { contentBlocks, stringContent } from '#src/request/message-content.ts';

const REASONING_WORDS = [
  'prove',
  'proof',
  'derive',
  'theorem',
  'algorithm',
  'optimize',
  'optimise',
  'refactor',
  'debug',
  'architecture',
  'analyze',
  'analyse',
  'trade-off',
  'tradeoff',
  'complexity',
  'step by step',
  'rigorous',
  'concurrency',
];

/** The difficulty estimate: a score in [0, 1], a label and the signals that raised it. */
export interface Difficulty {
  score: number;
  label: 'easy' | 'medium' | 'hard';
  signals: string[];
}

/** Points at which the score reaches 1. */
export const MAX_DIFFICULTY_POINTS = 8;

function lastUserText(request: MessageRequest): string {
  const last = [...request.messages].reverse().find((message) => message.role === 'user');
  if (last === undefined) return '';
  return stringContent(last) ?? contentBlocks(last).map((block) => (block.type === 'text' && 'text' in block ? block.text : '')).join('\n');
}

/**
 * Scores a prompt's difficulty by points, capped at {@link MAX_DIFFICULTY_POINTS} and scaled to [0, 1]:
 * - length (estimated tokens, `estimateInputTokens`): under 500 → 0, under 4,000 → 1, under 32,000 → 2, longer → 3;
 * - code: a fenced code block anywhere → 1;
 * - reasoning words in the last user turn ("prove", "algorithm", "debug", "step by step", ...): one → 1, three or more → 2;
 * - extended thinking requested → 2; effort high or above → 1 (the effective effort, `requestedEffort`: a
 *   system message's per-message `output_config.effort`, as Claude Code sends on the 5.5 models, over the top-level one);
 * - tools: one to four → 1, five or more → 2.
 * Labels: under 0.25 easy, under 0.6 medium, else hard.
 */
export function estimateDifficulty(request: MessageRequest): Difficulty {
  let points = 0;
  const signals: string[] = [];
  const tokens = estimateInputTokens(request);
  const lengthPoints = tokens < 500 ? 0 : tokens < 4_000 ? 1 : tokens < 32_000 ? 2 : 3;
  if (lengthPoints > 0) signals.push(`~${tokens} tokens`);
  points += lengthPoints;
  if (requestText(request).includes('```')) {
    points += 1;
    signals.push('code');
  }
  const question = lastUserText(request).toLowerCase();
  const words = REASONING_WORDS.filter((word) => question.includes(word));
  if (words.length > 0) {
    points += words.length >= 3 ? 2 : 1;
    signals.push(`reasoning words: ${words.join(', ')}`);
  }
  if (requestsThinking(request)) {
    points += 2;
    signals.push('thinking');
  }
  const effort = requestedEffort(request);
  if (effort === 'high' || effort === 'xhigh' || effort === 'max') {
    points += 1;
    signals.push(`effort ${effort}`);
  }
  const toolCount = request.tools?.length ?? 0;
  if (toolCount > 0) {
    points += toolCount >= 5 ? 2 : 1;
    signals.push(`${toolCount} tools`);
  }
  const score = Math.min(points, MAX_DIFFICULTY_POINTS) / MAX_DIFFICULTY_POINTS;
  return { score, label: score < 0.25 ? 'easy' : score < 0.6 ? 'medium' : 'hard', signals };
}
