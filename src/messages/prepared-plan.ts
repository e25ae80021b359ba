/**
 * A routing plan made ready to run: each attempt knows its adapter call, how to get its key (decrypted only
 * when the attempt runs) and how to price its usage. Built per request by the planner service from the
 * pure routing plan; consumed by `createMessage`.
 */
import type { DataRegion, MessageRequest } from '#src/api-types.ts';
import type { UpstreamError } from '#src/errors.ts';
import type { ApiFamily, ProviderKey } from '#src/providers/provider-adapter.ts';
import type { AttemptIdentity } from '#src/messages/run-attempts.ts';
import type { ConsideredEndpoint } from '#src/messages/gateway-metadata.ts';
import type { UsageForCost } from '#src/messages/gateway-additions.ts';

/** One attempt, ready to call. */
export interface PreparedAttempt extends AttemptIdentity {
  family: ApiFamily;
  upstreamModel: string;
  providerHeaders?: Record<string, string>;
  /** Index of this attempt's endpoint in the plan's `available` list. */
  availableIndex: number;
  credentialId: string | null;
  /** Run the endpoint's fast variant, at its price. */
  fast: boolean;
  /**
   * The key for this attempt, decrypted in memory only when the attempt runs, and the base URL it goes to
   * (a key naming its region, `{api_key, region}`, sends the call to that region's host).
   */
  resolveTarget(): Promise<{ key: ProviderKey | undefined; baseUrl: string }>;
  priceUsage(usage: UsageForCost): number;
}

/** A plan ready to run, with the hooks that keep sticky pins and endpoint statistics current. */
export interface PreparedPlan {
  /** The request as every attempt sees it (top-level cache marker placed, auto-router model chosen). */
  request: MessageRequest;
  requested: string;
  region: DataRegion;
  strategy: string;
  available: ConsideredEndpoint[];
  attempts: PreparedAttempt[];
  onSuccess(attempt: PreparedAttempt, sample: { durationMs: number; outputTokens?: number }): void;
  onFailure(attempt: PreparedAttempt, error: UpstreamError): void;
}

/** What the planner needs to know about the request beyond its body. */
export interface PlanRequestContext {
  accountId: string;
  workspaceId: string;
  keyHash: string;
  headers: Record<string, string | string[] | undefined>;
}

/** Turns a validated request into a prepared plan (throws a GatewayError when nothing can serve it). */
export type RequestPlanner = (request: MessageRequest, context: PlanRequestContext) => Promise<PreparedPlan>;
