/**
 * The key under which a session's pin is stored: the session's own id when it has one, else a hash of how the
 * conversation starts, scoped by account and requested model.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { MessageRequest } from '#src/api-types.ts';
import { systemText } from '#src/routing/request-parameters.ts';

/** Where a sticky key came from, for logs and metadata. */
export type StickySource = 'session_id' | 'x-session-id' | 'x-claude-code-session-id' | 'content';

/** A session's key in the pin store, scoped to one account and one requested model. */
export interface StickyKey {
  key: string;
  source: StickySource;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

function firstUserContent(request: MessageRequest): string {
  const first = request.messages.find((message) => message.role === 'user');
  if (first === undefined) return '';
  return typeof first.content === 'string' ? first.content : JSON.stringify(first.content);
}

/**
 * The sticky key of a request: the body's `session_id`, else the `x-session-id` header (the body wins), else
 * Claude Code's `x-claude-code-session-id`, else a hash of the first system text and the first user message,
 * so a conversation keeps one key as it grows. The key is scoped by account (tenants never share pins) and by
 * requested model (one session may call several models, each with its own cache).
 */
export function stickyKey(request: MessageRequest, headers: IncomingHttpHeaders, caller: { accountId: string }): StickyKey {
  const explicit: Array<[StickySource, string | undefined]> = [
    ['session_id', request.session_id === '' ? undefined : request.session_id],
    ['x-session-id', headerValue(headers, 'x-session-id')],
    ['x-claude-code-session-id', headerValue(headers, 'x-claude-code-session-id')],
  ];
  const found = explicit.find(([, value]) => value !== undefined);
  const [source, value] = found ?? ['content', `${systemText(request)}\u0000${firstUserContent(request)}`];
  const digest = createHash('sha256').update(`${request.model}\u0000${source === 'content' ? 'content' : 'session'}\u0000${value}`).digest('hex');
  return { key: `${caller.accountId}:${digest}`, source: source as StickySource };
}
