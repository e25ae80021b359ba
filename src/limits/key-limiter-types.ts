/**
 * What the key limiter reads: of a planned request, of its context, of a finished request, and its own
 * options. Plain data, so the messages service and the tool loop hand the limiter what they already hold.
 */
import type { Registry } from 'prom-client';
import type { MessageRequest } from '#src/api-types.ts';
import type { Pricing } from '#src/catalog/catalog-types.ts';
import type { Logger } from '#src/logger.ts';
import type { KeyLimits } from '#src/limits/key-limits.ts';
import type { SpendLedger } from '#src/limits/spend-ledger.ts';
import type { AnswerUsage } from '#src/observability/generation-outcome.ts';
import type { RedisConnection } from '#src/redis/redis-connection.ts';

/** What admission reads of a planned request. */
export interface AdmissionPlan {
  request: Pick<MessageRequest, 'system' | 'messages' | 'tools' | 'max_tokens' | 'stream' | 'context_management'>;
  attempts: readonly { pricing: Readonly<Pricing> }[];
}

/** What admission reads of the request's context. */
export interface AdmissionContext {
  caller: { keyHash: string; limits?: KeyLimits | null | undefined };
  generationId: string;
}

/** What settlement reads of a finished request (a generation outcome). */
export interface SettledRequest {
  id: string;
  keyHash: string;
  /** Epoch ms the request arrived: its day in the spending ledger. */
  startedAt: number;
  usage: AnswerUsage | null;
}

/** Options of the limiter. */
export interface KeyLimiterOptions {
  ledger: SpendLedger;
  redis: RedisConnection | undefined;
  logger: Logger;
  registry?: Registry;
  /** How long a reservation that is never settled (its instance died) keeps counting. */
  holdMs: number;
  now?: () => number;
}
