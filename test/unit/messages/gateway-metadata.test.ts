import { describe, expect, it } from 'vitest';
import { buildGatewayMetadata, type MetadataInput } from '#src/messages/gateway-metadata.ts';
import type { AttemptRecord } from '#src/messages/run-attempts.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import { attempt, provider } from '#test/unit/routing/attempt-fixtures.ts';

const PROVIDERS = { Anthropic: provider('anthropic', { displayName: 'Anthropic' }), 'Amazon Bedrock': provider('bedrock', { displayName: 'Amazon Bedrock' }), OpenAI: provider('openai', { displayName: 'OpenAI' }) };

function on(model: string, name: keyof typeof PROVIDERS, availableIndex: number, isByok = false): Attempt {
  return attempt(model, PROVIDERS[name], { availableIndex, credential: isByok ? { kind: 'byok', credentialId: 'cred-1' } : { kind: 'shared' } });
}

const SONNET_ON_ANTHROPIC = on('anthropic/claude-sonnet-4.5', 'Anthropic', 0);

function record(tried: Attempt, status: AttemptRecord['status'], httpStatus: number | null = null): AttemptRecord {
  return { attempt: tried, index: 0, status, httpStatus, durationMs: 40 };
}

function input(overrides: Partial<MetadataInput> & { region?: 'global' | 'europe' } = {}): MetadataInput {
  const { region = 'global', ...rest } = overrides;
  return {
    plan: {
      requested: 'anthropic/claude-sonnet-4.5',
      region,
      strategy: 'price',
      available: [
        { model: 'anthropic/claude-sonnet-4.5', provider: 'Anthropic', providerSlug: 'anthropic' },
        { model: 'anthropic/claude-sonnet-4.5', provider: 'Amazon Bedrock', providerSlug: 'bedrock' },
        { model: 'openai/gpt-5', provider: 'OpenAI', providerSlug: 'openai' },
      ],
    },
    served: SONNET_ON_ANTHROPIC,
    records: [record(SONNET_ON_ANTHROPIC, 'success', 200)],
    startedAt: performance.now() - 250,
    ...rest,
  };
}

describe('buildGatewayMetadata', () => {
  it('fills every field of the interface for a first-attempt success', () => {
    const metadata = buildGatewayMetadata(input());
    expect(metadata).toEqual({
      attempt: 1,
      endpoints: {
        available: [
          { model: 'anthropic/claude-sonnet-4.5', provider: 'Anthropic', selected: true },
          { model: 'anthropic/claude-sonnet-4.5', provider: 'Amazon Bedrock', selected: false },
          { model: 'openai/gpt-5', provider: 'OpenAI', selected: false },
        ],
        total: 3,
      },
      generation_time: expect.any(Number),
      is_byok: false,
      region: 'global',
      requested: 'anthropic/claude-sonnet-4.5',
      strategy: 'price',
      summary: 'served by anthropic/claude-sonnet-4.5 on Anthropic on the first attempt (price)',
      attempts: [{ provider: 'Anthropic', model: 'anthropic/claude-sonnet-4.5', status: 'success', http_status: 200, is_byok: false, duration_ms: 40 }],
    });
    expect(metadata.generation_time).toBeGreaterThanOrEqual(250);
    expect(Number.isInteger(metadata.generation_time)).toBe(true);
  });

  it('counts attempts, marks the endpoint that answered and names the failures in the summary', () => {
    const served = on('openai/gpt-5', 'OpenAI', 2, true);
    const metadata = buildGatewayMetadata(
      input({
        served,
        region: 'europe',
        records: [
          record(SONNET_ON_ANTHROPIC, 'overloaded', 529),
          record(on('anthropic/claude-sonnet-4.5', 'Amazon Bedrock', 1), 'rate_limited', 429),
          record(served, 'success', 200),
        ],
      }),
    );
    expect(metadata.attempt).toBe(3);
    expect(metadata.endpoints.available.map((endpoint) => endpoint.selected)).toEqual([false, false, true]);
    expect(metadata).toMatchObject({ is_byok: true, region: 'europe' });
    expect(metadata.summary).toBe(
      'anthropic/claude-sonnet-4.5 on Anthropic (overloaded), anthropic/claude-sonnet-4.5 on Amazon Bedrock (rate limited) failed; served by openai/gpt-5 on OpenAI with your key',
    );
    expect(metadata.attempts?.map((attempt) => [attempt.status, attempt.http_status, attempt.is_byok])).toEqual([
      ['overloaded', 529, false],
      ['rate_limited', 429, false],
      ['success', 200, true],
    ]);
  });

  it('shows only the wire fields: no provider slug, no attempt internals', () => {
    const [shown] = buildGatewayMetadata(input()).attempts ?? [];
    expect(Object.keys(shown ?? {}).sort()).toEqual(['duration_ms', 'http_status', 'is_byok', 'model', 'provider', 'status']);
    expect(buildGatewayMetadata(input()).endpoints.available[0]).not.toHaveProperty('providerSlug');
  });

  it('names the refusal that was returned, not a later failure, as what served the request', () => {
    // Every model refused or failed: the runner returns the (last) refusal, whatever failed after it.
    const metadata = buildGatewayMetadata(
      input({
        records: [record(SONNET_ON_ANTHROPIC, 'refusal', 200), record(on('openai/gpt-5', 'OpenAI', 2), 'server_error', 500)],
      }),
    );
    expect(metadata.summary).toBe('openai/gpt-5 on OpenAI (server error) failed; served by anthropic/claude-sonnet-4.5 on Anthropic (refusal)');
    expect(metadata.attempt).toBe(1);
  });

  it('names the last refusal when every model refused', () => {
    const metadata = buildGatewayMetadata(
      input({
        served: on('openai/gpt-5', 'OpenAI', 2),
        records: [record(SONNET_ON_ANTHROPIC, 'refusal', 200), record(on('openai/gpt-5', 'OpenAI', 2), 'refusal', 200)],
      }),
    );
    expect(metadata.summary).toBe('anthropic/claude-sonnet-4.5 on Anthropic (refusal) failed; served by openai/gpt-5 on OpenAI (refusal)');
  });
});
