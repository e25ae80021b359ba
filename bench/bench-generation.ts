/**
 * The generation the observability benches broadcast (`bench/observability-cost.ts`, `bench/otlp-instructions.ts`):
 * a successful non-streaming BYOK call with one attempt, no trace keys, no content, as the gateway's observer
 * hands it over.
 */
import type { GenerationRecord } from '#src/observability/build-generation-record.ts';
import type { BroadcastItem } from '#src/observability/broadcast/broadcast-types.ts';
import { newGenerationId } from '#src/http/generation-id.ts';

const attempt = { provider: { slug: 'anthropic', displayName: 'Anthropic' }, upstreamModel: 'claude-sonnet-4-5', model: 'bench/model', credential: { kind: 'byok' } };

/** A new generation of the given account, with a fresh id. */
export function benchGeneration(account: { accountId: string; workspaceId: string; keyHash: string }): BroadcastItem {
  const record: GenerationRecord = {
    id: newGenerationId(), accountId: account.accountId, workspaceId: account.workspaceId, keyHash: account.keyHash, createdAt: new Date(),
    requestedModel: 'bench/model', model: 'bench/model', responseModel: 'claude-sonnet-4-5-20250929', provider: 'anthropic', providerName: 'Anthropic', isByok: true, stream: false, status: 'success', httpStatus: 200,
    stopReason: 'end_turn', errorType: null, errorMessage: null, inputTokens: 12, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, usageEstimated: false, cost: 0.000186,
    timeToFirstByteMs: 3, totalMs: 3, sessionId: null, userId: null, trace: null,
    attempts: [{ provider: 'Anthropic', model: 'bench/model', status: 'success', http_status: 200, is_byok: true, duration_ms: 2, response_model: 'claude-sonnet-4-5-20250929' }],
    toolSteps: null, moderation: null, prompt: null, completion: null, contentExpiresAt: null,
  };
  const outcome = { request: { model: 'bench/model', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }, attempts: [{ attempt, status: 'success', httpStatus: 200, responseModel: 'claude-sonnet-4-5-20250929' }], served: attempt, steps: null, usage: { input_tokens: 12, output_tokens: 10 }, stopReason: 'end_turn', responseId: 'msg_bench' };
  return { record, outcome } as unknown as BroadcastItem;
}
