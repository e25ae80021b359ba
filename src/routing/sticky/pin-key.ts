/**
 * The key under which a session's pin is stored: the session's own id when it has one, else a hash of how the
 * conversation starts, scoped by account and requested model.
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

function firstUserContent(request: MessageRequest): string {
  const first = request.messages.find((message) => message.role === 'user');
  if (first === undefined) return '';
  return typeof first.content === 'string' ? first.content : JSON.stringify(first.content);
}

/**
 * The sticky key of a request: the session the client named (the body's `session_id`, else `x-session-id`,
 * else Claude Code's `x-claude-code-session-id`), else a hash of the first system text and the first user
 * message, so a conversation keeps one key as it grows. The key is scoped by account (tenants never share
 * pins) and by requested model (one session may call several models, each with its own cache).
 */
export function stickyKey(request: MessageRequest, session: NamedSession | null, accountId: string): StickyKey {
  const source: StickySource = session?.source ?? 'content';
  const value = session?.id ?? `${systemText(request)}\u0000${firstUserContent(request)}`;
  const digest = hash('sha256', `${request.model}\u0000${session ? 'session' : 'content'}\u0000${value}`, 'hex');
  return { key: `${accountId}:${digest}`, source };
}
