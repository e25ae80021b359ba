import { describe, expect, it } from 'vitest';
import { buildGatewayMetadata, wantsGatewayMetadata, type MetadataInput } from '#src/messages/gateway-metadata.ts';
import type { AttemptRecord } from '#src/messages/run-attempts.ts';

function record(model: string, provider: string, status: AttemptRecord['status'], httpStatus: number | null = null, isByok = false): AttemptRecord {
  return { provider, providerSlug: provider.toLowerCase(), model, status, http_status: httpStatus, is_byok: isByok, duration_ms: 40 };
}

function input(overrides: Partial<MetadataInput> = {}): MetadataInput {
  return {
    requested: 'anthropic/claude-sonnet-4.5',
    region: 'global',
    strategy: 'price',
    available: [
      { model: 'anthropic/claude-sonnet-4.5', provider: 'Anthropic' },
      { model: 'anthropic/claude-sonnet-4.5', provider: 'Amazon Bedrock' },
      { model: 'openai/gpt-5', provider: 'OpenAI' },
    ],
    selectedIndex: 0,
    records: [record('anthropic/claude-sonnet-4.5', 'Anthropic', 'success', 200)],
    isByok: false,
    startedAt: performance.now() - 250,
    ...overrides,
  };
}

describe('wantsGatewayMetadata', () => {
  it.each([
    [{}, false],
    [{ 'x-gateway-metadata': 'enabled' }, true],
    [{ 'x-gateway-metadata': 'disabled' }, false],
    [{ 'x-gateway-experimental-metadata': 'enabled' }, true],
    [{ 'x-gateway-experimental-metadata': 'disabled' }, false],
    [{ 'x-gateway-metadata': 'disabled', 'x-gateway-experimental-metadata': 'enabled' }, false],
    [{ 'x-gateway-metadata': 'enabled', 'x-gateway-experimental-metadata': 'disabled' }, true],
    [{ 'x-gateway-metadata': 'yes' }, false],
  ])('headers %j -> %s', (headers, wanted) => {
    expect(wantsGatewayMetadata(headers)).toBe(wanted);
  });
});

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
    const metadata = buildGatewayMetadata(
      input({
        selectedIndex: 2,
        isByok: true,
        region: 'europe',
        records: [
          record('anthropic/claude-sonnet-4.5', 'Anthropic', 'overloaded', 529),
          record('anthropic/claude-sonnet-4.5', 'Amazon Bedrock', 'rate_limited', 429),
          record('openai/gpt-5', 'OpenAI', 'success', 200, true),
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

  it('does not show the internal provider slug in attempts', () => {
    const [attempt] = buildGatewayMetadata(input()).attempts ?? [];
    expect(attempt).not.toHaveProperty('providerSlug');
  });

  it('names the refusal that was returned, not a later failure, as what served the request', () => {
    // Every model refused or failed: the runner returns the (last) refusal, whatever failed after it.
    const metadata = buildGatewayMetadata(
      input({
        selectedIndex: 0,
        records: [record('anthropic/claude-sonnet-4.5', 'Anthropic', 'refusal', 200), record('openai/gpt-5', 'OpenAI', 'server_error', 500)],
      }),
    );
    expect(metadata.summary).toBe('openai/gpt-5 on OpenAI (server error) failed; served by anthropic/claude-sonnet-4.5 on Anthropic (refusal)');
    expect(metadata.attempt).toBe(1);
  });

  it('names the last refusal when every model refused', () => {
    const metadata = buildGatewayMetadata(
      input({
        selectedIndex: 2,
        records: [record('anthropic/claude-sonnet-4.5', 'Anthropic', 'refusal', 200), record('openai/gpt-5', 'OpenAI', 'refusal', 200)],
      }),
    );
    expect(metadata.summary).toBe('anthropic/claude-sonnet-4.5 on Anthropic (refusal) failed; served by openai/gpt-5 on OpenAI (refusal)');
  });
});
