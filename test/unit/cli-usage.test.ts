/** The tables of `switchboard usage`. */
import { describe, expect, it } from 'vitest';
import { formatUsageTable } from '#src/cli-usage.ts';

const row = (key: string, requests: number, cost: number) => ({
  key,
  requests,
  input_tokens: requests * 10,
  output_tokens: requests * 20,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 5,
  reasoning_tokens: 0,
  cost,
});

describe('formatUsageTable', () => {
  it('aligns the key left and the numbers right, cost to six decimals', () => {
    expect(formatUsageTable('model', [row('openai/gpt-5', 12, 1.5), row('a/b', 3, 0.000123)]).split('\n')).toEqual([
      'model         requests  input  output  cache read  cache write  reasoning  cost (USD)',
      'openai/gpt-5        12    120     240           0            5          0    1.500000',
      'a/b                  3     30      60           0            5          0    0.000123',
    ]);
  });

  it('says when there is nothing', () => {
    expect(formatUsageTable('day', []).split('\n')[1]).toBe('(no requests)');
  });
});
