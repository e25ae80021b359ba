/**
 * What the plugins need from the rest of the gateway, built once at start-up: their configuration, the
 * gateway's tools (for `web` and `web-fetch`), the catalog's providers (for OpenAI's moderation endpoint), and
 * the normal attempt path (planner, key vault, adapters) for a moderation model from the catalog.
 */
import type { Catalog } from '#src/catalog/index.ts';
import type { Logger } from '#src/logger.ts';
import type { ApiFamily, ProviderAdapter } from '#src/providers/provider-adapter.ts';
import type { CredentialSource, RequestPlan, RequestPlanner } from '#src/routing/plan-request.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import type { ServerToolRuntime } from '#src/server-tools/server-tool-runtime.ts';
import type { ServerToolsConfig } from '#src/server-tools/server-tools-config.ts';
import type { ModerationClients } from '#src/plugins/moderation/openai-moderation.ts';
import type { PassedPieces } from '#src/plugins/moderation/moderation-pieces.ts';
import type { PluginsConfig } from '#src/plugins/plugins-config.ts';

/** The plugins' own dependencies. */
export interface PluginDeps {
  config: PluginsConfig;
  serverTools: ServerToolsConfig;
  /** The gateway's tools' shared state (HTTP clients, clock); the web plugins run the tools through it. */
  toolRuntime: ServerToolRuntime;
  catalog: Pick<Catalog, 'getProvider'>;
  /** OpenAI SDK clients of the moderation endpoint, made on first use. */
  moderationClients: ModerationClients;
  /** The pieces the moderation engine passed, by digest, so that a conversation's history is screened once. */
  moderationPassed: PassedPieces;
}

/**
 * The key limits as a moderation model's screening call meets them (src/limits/key-limiter.ts): reserved
 * before it is sent (a plain request's with the request itself, a tool loop's on its own), settled (the
 * spending ledger included) as soon as it has ended.
 */
export interface ScreeningAdmission {
  /** A tool loop's screening: throws the 402 or 429 of a spent limit; returns the hold id, or undefined when nothing is held. */
  admitScreening(calls: readonly Pick<RequestPlan, 'request' | 'attempts'>[], context: MessagesRequestContext): Promise<string | undefined>;
  settleScreening(context: MessagesRequestContext, holdId: string | undefined, actual: { cost: number; tokens: number }): void;
}

/** The normal attempt path, as a moderation model from the catalog is called (the messages service's deps). */
export interface ModelRouting {
  planner: Pick<RequestPlanner, 'plan'>;
  vault: Pick<CredentialSource, 'revealKey'>;
  adapterFor(family: ApiFamily): ProviderAdapter;
  /** The key limits; absent: none. */
  admission?: ScreeningAdmission;
}

/** What the plugin hooks take: the messages service's deps, which carry the plugins' own. */
export interface PluginHookDeps extends ModelRouting {
  plugins: PluginDeps;
  logger: Logger;
}
