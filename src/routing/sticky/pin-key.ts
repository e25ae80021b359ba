/**
 * The key under which a session's pin is stored: the session's own id when it has one, else a hash of how the
 * conversation starts; either way scoped by tenant (account and workspace), end user and requested model.
 */
import { hash } from 'node:crypto';
import type { MessageRequest } from '#src/api-types.ts';
import { systemText } from '#src/routing/request-parameters.ts';

/** Where a session id came from, in the order that decides between them. */
export type SessionSource = 'session_id' | 'x-session-id' | 'x-claude-code-session-id';

/** A session named by the client: the body's `session_id`, else `x-session-id`, else Claude Code's header. */
export interface NamedSession {
  id: string;
  source: SessionSource;
}

/** Where a sticky key came from, for logs and metadata. */
export type StickySource = SessionSource | 'content';

/** A session's key in the pin store, scoped to one account and one requested model. */
export interface StickyKey {
  key: string;
  source: StickySource;
}

/** The tenant a pin belongs to: the caller's account and workspace (the API key itself is not part of it). */
export interface StickyScope {
  accountId: string;
  workspaceId: string;
}

function firstUserContent(request: MessageRequest): string {
  const first = request.messages.find((message) => message.role === 'user');
  if (first === undefined) return '';
  return typeof first.content === 'string' ? first.content : JSON.stringify(first.content);
}

/**
 * The sticky key of a request: the session the client named (the body's `session_id`, else `x-session-id`,
 * else Claude Code's `x-claude-code-session-id`), else a hash of the first system text and the first user
 * message, so a conversation keeps one key as it grows. The key is scoped by tenant (account and workspace:
 * tenants never share pins), by the end user the request names (`user`, `metadata.user_id`: two users who
 * open alike, or reuse a session id, are two sessions) and by requested model (one session may call several
 * models, each with its own cache). The API keys of one workspace share their pins: one tenant, whose
 * conversation keeps its provider (and that provider's prompt cache) when it goes on with another of its keys.
 * The parts are hashed as one JSON array, so no text in one part can pass for another part.
 */
export function stickyKey(request: MessageRequest, session: NamedSession | null, scope: StickyScope): StickyKey {
  const source: StickySource = session?.source ?? 'content';
  const opening = session ? [session.id] : [systemText(request), firstUserContent(request)];
  const parts = [scope.workspaceId, request.model, session ? 'session' : 'content', request.user ?? null, request.metadata?.user_id ?? null, ...opening];
  return { key: `${scope.accountId}:${hash('sha256', JSON.stringify(parts), 'hex')}`, source };
}
