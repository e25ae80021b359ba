/**
 * Reads a `/messages` request's headers once, at the route, into the typed context the messages service and
 * the planner take: the session and where it was named, the data region, the metadata opt-in, the headers an
 * Anthropic-format upstream understands, Claude Code's session id, plus the caller, generation id, start
 * time and abort signal.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Request, Response } from 'express';
import { isDataRegion, type DataRegion, type ResidencyRegion } from '#src/data-region.ts';
import { callerOf } from '#src/http/caller.ts';
import { requestSignal, type ShutdownDeadline } from '#src/http/request-signal.ts';
import type { MessagesRequestContext } from '#src/messages/request-context.ts';
import type { NamedSession } from '#src/routing/sticky/pin-key.ts';

/** What the route knows beyond the request. */
export interface MessagesContextOptions {
  /** Host names that imply a data region (`SWITCHBOARD_REGIONAL_HOSTS`). */
  regionalHosts: ReadonlyMap<string, ResidencyRegion>;
  /** Upper bound on the whole request, all attempts included. */
  requestTimeoutMs: number;
  /** The server's shutdown deadline, which aborts the request when the grace period ends. */
  drain?: ShutdownDeadline;
}

/** The parts of the context read from the headers (and the body's `session_id`, which wins over them). */
export type HeaderContext = Pick<MessagesRequestContext, 'region' | 'wantsMetadata' | 'forwardHeaders' | 'organizationHeaders' | 'session' | 'claudeCodeSessionId' | 'traceparent'>;

// A beta list as the Anthropic SDKs write it: flags joined by commas, no space, no empty flag.
const CLEAN_BETAS = /^[^\s,]+(?:,[^\s,]+)*$/;

/**
 * `anthropic-beta` as an Anthropic-format upstream takes it: each flag trimmed, empty ones dropped (`a,,b`,
 * a trailing comma, `, ` between two headers a proxy repeated), undefined when no flag is left. Anthropic
 * answers an empty flag with a 400 about a beta the client never named. Pure.
 */
export function betaFlags(value: string): string | undefined {
  if (CLEAN_BETAS.test(value)) return value;
  const flags = value.split(',').map((flag) => flag.trim()).filter((flag) => flag !== '');
  return flags.length > 0 ? flags.join(',') : undefined;
}

/**
 * The headers an Anthropic-format upstream understands, as forwarded: `anthropic-version` as sent but an
 * empty one left out (the adapter's default applies, as with none; forwarded empty it was a 400 upstream),
 * `anthropic-beta` as {@link betaFlags} gives it. Pure.
 */
export function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const forwarded: Record<string, string> = {};
  const version = headers['anthropic-version'];
  if (typeof version === 'string' && version.trim() !== '') forwarded['anthropic-version'] = version.trim();
  const beta = headers['anthropic-beta'];
  const flags = typeof beta === 'string' ? betaFlags(beta) : undefined;
  if (flags !== undefined) forwarded['anthropic-beta'] = flags;
  return forwarded;
}

// Anthropic headers naming places in the caller's own organization (the SDKs' `workspace_id`, `user_profile_id`).
const ORGANIZATION_HEADERS = ['anthropic-workspace-id', 'anthropic-user-profile-id'] as const;

/**
 * `anthropic-workspace-id` and `anthropic-user-profile-id` as sent (trimmed, empty ones left out), null without
 * either: an Anthropic-format upstream gets them only with the caller's own key (src/messages/attempt-call.ts).
 * Pure.
 */
export function organizationHeaders(headers: IncomingHttpHeaders): Record<string, string> | null {
  let found: Record<string, string> | null = null;
  for (const name of ORGANIZATION_HEADERS) {
    const value = headers[name];
    if (typeof value !== 'string' || value.trim() === '') continue;
    found ??= {};
    found[name] = value.trim();
  }
  return found;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

/** The request's data region: the `X-Gateway-Region` header, else the regional host it arrived on. */
export function requestRegion(headers: IncomingHttpHeaders, regionalHosts: ReadonlyMap<string, ResidencyRegion>): DataRegion {
  const header = headers['x-gateway-region'];
  if (isDataRegion(header)) return header;
  // No regional host configured (the usual gateway): no Host to trim and lower-case per request.
  if (regionalHosts.size === 0) return 'global';
  const host = typeof headers.host === 'string' ? headers.host.replace(/:\d+$/, '').toLowerCase() : '';
  return regionalHosts.get(host) ?? 'global';
}

function namedSession(bodySessionId: string | undefined, headers: IncomingHttpHeaders): NamedSession | null {
  if (bodySessionId !== undefined && bodySessionId !== '') return { id: bodySessionId, source: 'session_id' };
  for (const source of ['x-session-id', 'x-claude-code-session-id'] as const) {
    const id = headerValue(headers, source);
    if (id !== undefined) return { id, source };
  }
  return null;
}

/** Reads the header context: a pure function of the headers, the body's `session_id` and the regional hosts. */
export function readHeaderContext(
  headers: IncomingHttpHeaders,
  bodySessionId: string | undefined,
  regionalHosts: ReadonlyMap<string, ResidencyRegion>,
): HeaderContext {
  const forwardHeaders = forwardedHeaders(headers);
  // The current header wins over the legacy one whenever it is present.
  const metadata = headers['x-gateway-metadata'] ?? headers['x-gateway-experimental-metadata'];
  return {
    region: requestRegion(headers, regionalHosts),
    wantsMetadata: metadata === 'enabled',
    forwardHeaders,
    organizationHeaders: organizationHeaders(headers),
    session: namedSession(bodySessionId, headers),
    claudeCodeSessionId: headerValue(headers, 'x-claude-code-session-id') ?? null,
    traceparent: headerValue(headers, 'traceparent') ?? null,
  };
}

/** The context of one `/messages` request; call first thing in the route, so `startedAt` is its start. */
export function readMessagesContext(req: Request<Record<string, string>, unknown, { session_id?: string }>, res: Response, options: MessagesContextOptions): MessagesRequestContext {
  const startedAt = performance.now();
  const { accountId, workspaceId, keyHash, limits } = callerOf(res);
  const signal = requestSignal(req, res, options.requestTimeoutMs, options.drain);
  const header = readHeaderContext(req.headers, req.body.session_id, options.regionalHosts);
  // Every field named, without a spread: V8 defines each property written after a spread with a runtime call
  // (~1,300 instructions each on Node 24, callgrind).
  return {
    caller: { accountId, workspaceId, keyHash, limits },
    generationId: res.locals.generationId as string,
    startedAt,
    signal,
    region: header.region,
    wantsMetadata: header.wantsMetadata,
    forwardHeaders: header.forwardHeaders,
    organizationHeaders: header.organizationHeaders,
    session: header.session,
    claudeCodeSessionId: header.claudeCodeSessionId,
    traceparent: header.traceparent,
    trail: { strategy: null, records: [], served: null },
    loopSteps: null,
    screening: null,
  };
}
