/**
 * Endpoints whose provider has retired the model (`retiresAt`) in the routing plan: never planned from that
 * instant on, whatever the preferences; a request they alone could serve is a `NoEndpointError` naming the
 * retirement, and, when a provider preference removed the rest, the providers still serving the model.
 */
import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { NoEndpointError } from '#src/errors.ts';
import { planAttempts } from '#src/routing/routing-plan.ts';
import { model, planInput, request, summarize } from '#test/unit/routing/plan-fixtures.ts';

const RETIRED_AT = Date.parse('2026-06-15T00:00:00Z');
const CATALOG = [
  model('anthropic/claude', [['anthropic', { retiresAt: RETIRED_AT }], ['bedrock']]),
  model('anthropic/old', [['anthropic', { retiresAt: RETIRED_AT }], ['bedrock', { retiresAt: Date.parse('2026-08-05T00:00:00Z') }]]),
];

function plan(overrides: Partial<MessageRequest>, now: number): string[] {
  return summarize(planAttempts(planInput({ request: request(overrides), now }, CATALOG)).attempts);
}

function refusal(overrides: Partial<MessageRequest>, now: number): string {
  try {
    planAttempts(planInput({ request: request(overrides), now }, CATALOG));
  } catch (error) {
    expect(error).toBeInstanceOf(NoEndpointError);
    return (error as Error).message;
  }
  throw new Error('planned');
}

describe('retired endpoints', () => {
  it('are planned until the instant they retire', () => {
    expect(plan({ provider: { order: ['anthropic'] } }, RETIRED_AT - 1)).toEqual(['anthropic/claude@anthropic', 'anthropic/claude@bedrock']);
  });

  it.each<[string, Partial<MessageRequest>]>([
    ['without preferences', {}],
    ['first in provider.order', { provider: { order: ['anthropic', 'bedrock'] } }],
  ])('are not planned from then on, %s', (_name, overrides) => {
    expect(plan(overrides, RETIRED_AT)).toEqual(['anthropic/claude@bedrock']);
  });

  it('leave a request that allows only them a refusal naming the retirement and who still serves the model', () => {
    expect(refusal({ provider: { only: ['anthropic'] } }, RETIRED_AT)).toBe(
      'No endpoint can serve this request: provider.only excludes every endpoint of anthropic/claude still serving it (anthropic/claude was retired on anthropic on 2026-06-15; still served by bedrock)',
    );
    expect(refusal({ provider: { ignore: ['bedrock'] } }, RETIRED_AT)).toContain('provider.ignore excludes every endpoint of anthropic/claude still serving it (');
  });

  it('name every provider when all of them have retired the model', () => {
    expect(refusal({ model: 'anthropic/old' }, Date.parse('2026-09-01T00:00:00Z'))).toBe(
      'No endpoint can serve this request: anthropic/old was retired on anthropic on 2026-06-15 and on bedrock on 2026-08-05',
    );
  });

  it('let a fallback model serve when the primary has retired everywhere', () => {
    expect(plan({ model: 'anthropic/old', fallbacks: [{ model: 'anthropic/claude' }] }, Date.parse('2026-09-01T00:00:00Z'))).toEqual(['anthropic/claude@bedrock']);
  });
});
