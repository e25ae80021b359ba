import { describe, expect, it } from 'vitest';
import { attemptOutputLimit, requestsOtherOutputLimit } from '#src/routing/output-limit-betas.ts';
import type { ApiFamily } from '#src/providers/provider-adapter.ts';

describe('requestsOtherOutputLimit', () => {
  it.each([
    ['no header', undefined, false],
    ['no anthropic-beta', {}, false],
    ['an empty header', { 'anthropic-beta': '' }, false],
    ["Claude Code's betas", { 'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,effort-2025-11-24' }, false],
    ['the 1M context beta, spaced', { 'anthropic-beta': 'interleaved-thinking-2025-05-14, context-1m-2025-08-07' }, false],
    ["the AI SDK's structured outputs", { 'anthropic-beta': 'structured-outputs-2025-11-13' }, false],
    ['Claude Sonnet 3.7 128K output', { 'anthropic-beta': 'output-128k-2025-02-19' }, true],
    ['the 300K batch output', { 'anthropic-beta': 'context-1m-2025-08-07,output-300k-2026-03-24' }, true],
    ['a beta the gateway does not know', { 'anthropic-beta': 'interleaved-thinking-2025-05-14,some-future-beta-2027-01-01' }, true],
  ])('%s: %s', (_name, headers, expected) => {
    expect(requestsOtherOutputLimit(headers as Record<string, string> | undefined)).toBe(expected);
  });
});

describe('attemptOutputLimit', () => {
  const endpoint = (family: ApiFamily, maxOutputTokens: number | null) => ({ maxOutputTokens, provider: { family } as never });

  it.each([
    ['Anthropic-format, no such beta', 'anthropic', 64_000, false, 64_000],
    ['Anthropic-format, such a beta: nothing lowered', 'anthropic', 64_000, true, null],
    ['translated (never sent the header), such a beta', 'openai-compatible', 8192, true, 8192],
    ['Bedrock, such a beta', 'bedrock', 64_000, true, 64_000],
    ['unknown limit', 'anthropic', null, false, null],
  ] as const)('%s', (_name, family, limit, other, expected) => {
    expect(attemptOutputLimit(endpoint(family, limit), other)).toBe(expected);
  });
});
