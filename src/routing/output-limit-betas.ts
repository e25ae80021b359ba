/**
 * Betas and the output limit. The gateway lowers a `max_tokens` above an endpoint's catalog `max_output_tokens`
 * to it (src/request/output-limit.ts), but Anthropic has had betas that raise a model's output ceiling
 * (`output-128k-2025-02-19`: 128K on Claude Sonnet 3.7 where 64K is the rule; `output-300k-2026-03-24`: 300K
 * on the Message Batches API for the 128K models), which reach Anthropic-format upstreams in the forwarded
 * `anthropic-beta` header. A request carrying such a beta, or any beta the gateway does not know, may be
 * asking a limit the catalog does not hold, so it is sent to those endpoints as the client wrote it: an
 * ask above what the upstream takes is then the upstream's 400, never a silent cut. The flags below are the
 * ones known to leave the output limit alone: the Anthropic TypeScript SDK's `AnthropicBeta` list (1.14.0)
 * but its two `output-` betas, the ones `@ai-sdk/anthropic` adds by itself, and Claude Code's.
 * Translated vendors are never sent the header, so their limit holds whatever the client sent.
 * @see https://platform.claude.com/docs/en/about-claude/models/overview (the 300K batch output beta)
 */
import type { CatalogEndpoint } from '#src/catalog/catalog-types.ts';

/** Beta flags known not to change a model's output limit. */
const OUTPUT_NEUTRAL_BETAS: ReadonlySet<string> = new Set([
  // The Anthropic TypeScript SDK's `AnthropicBeta` (1.14.0), without `output-128k-2025-02-19` and `output-300k-2026-03-24`.
  'message-batches-2024-09-24',
  'prompt-caching-2024-07-31',
  'computer-use-2024-10-22',
  'computer-use-2025-01-24',
  'computer-use-2025-11-24',
  'pdfs-2024-09-25',
  'token-counting-2024-11-01',
  'token-efficient-tools-2025-02-19',
  'files-api-2025-04-14',
  'mcp-client-2025-04-04',
  'mcp-client-2025-11-20',
  'mcp-client-2026-09-15',
  'mcp-tunnels-2026-06-22',
  'dev-full-thinking-2025-05-14',
  'interleaved-thinking-2025-05-14',
  'code-execution-2025-05-22',
  'extended-cache-ttl-2025-04-11',
  'context-1m-2025-08-07',
  'context-management-2025-06-27',
  'model-context-window-exceeded-2025-08-26',
  'skills-2025-10-02',
  'fast-mode-2026-02-01',
  'user-profiles-2026-03-24',
  'user-profiles-2026-08-18',
  'user-profiles-2026-09-04',
  'advisor-tool-2026-03-01',
  'managed-agents-2026-04-01',
  'cache-diagnosis-2026-04-07',
  'dreaming-2026-04-21',
  'thinking-token-count-2026-05-13',
  'server-side-fallback-2026-06-01',
  'server-side-fallback-2026-07-01',
  'fallback-credit-2026-06-01',
  'fallback-credit-2026-07-01',
  'agent-memory-2026-07-22',
  'mid-conversation-tool-changes-2026-07-01',
  'mid-conversation-output-config-2026-07-01',
  'mid-conversation-system-clear-at-2026-08-21',
  'compact-2026-01-12',
  'compact-2026-09-04',
  'structured-outputs-2025-11-13',
  'task-budgets-2026-03-13',
  'thinking-display-updates-2026-08-18',
  'thinking-binding-controls-2026-08-01',
  'inline-tools-2026-09-15',
  'message-threads-2026-08-12',
  'experimental-claude-tag-2026-10-21',
  // Added by `@ai-sdk/anthropic` for the features a call uses, beyond the SDK's list.
  'code-execution-2025-08-25',
  'code-execution-web-tools-2026-02-09',
  'web-fetch-2025-09-10',
  'advanced-tool-use-2025-11-20',
  'mid-conversation-system-2026-04-07',
  'dangerous-tool-use-2026-09-03',
  // Sent by Claude Code with every request.
  'claude-code-20250219',
  'oauth-2025-04-20',
  'fine-grained-tool-streaming-2025-05-14',
  'prompt-caching-scope-2026-01-05',
  'effort-2025-11-24',
]);

/**
 * Whether the client's `anthropic-beta` header (comma-separated flags) names a beta not known to leave the
 * output limit alone: an output-raising one, or one the gateway does not know. False without the header.
 */
export function requestsOtherOutputLimit(forwardHeaders: Readonly<Record<string, string>> | undefined): boolean {
  const beta = forwardHeaders?.['anthropic-beta'];
  if (beta === undefined) return false;
  for (const flag of beta.split(',')) {
    const name = flag.trim();
    if (name !== '' && !OUTPUT_NEUTRAL_BETAS.has(name)) return true;
  }
  return false;
}

/**
 * The output limit an attempt on `endpoint` lowers `max_tokens` to: the endpoint's own (null when unknown),
 * or null (nothing lowered) on an Anthropic-format endpoint, which receives the beta header, when the client
 * sent a beta that may change the limit.
 */
export function attemptOutputLimit(endpoint: Pick<CatalogEndpoint, 'maxOutputTokens' | 'provider'>, otherOutputLimit: boolean): number | null {
  if (otherOutputLimit && endpoint.provider.family === 'anthropic') return null;
  return endpoint.maxOutputTokens;
}
