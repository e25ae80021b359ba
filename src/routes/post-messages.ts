/** `POST /messages`: create a message through the gateway's routing, as JSON or an event stream. */
import type { Request, RequestHandler, Router } from 'express';
import type { MessageRequest } from '#src/api-types.ts';
import { readMessagesContext, type MessagesContextOptions } from '#src/http/messages-context.ts';
import { createSseWriter } from '#src/http/sse-writer.ts';
import { sendJson } from '#src/http/send-json.ts';
import { streamToClient } from '#src/http/stream-to-client.ts';
import { createMessage, type MessagesDeps } from '#src/messages/create-message.ts';
import type { Logger } from '#src/logger.ts';
import type { GenerationObserver } from '#src/observability/generation-observer.ts';
import type { SseEvent } from '#src/providers/provider-adapter.ts';

/** Dependencies of the messages routes. */
export interface MessagesRouteDeps extends MessagesContextOptions {
  messages: MessagesDeps;
  logger: Logger;
  /** Records every request's outcome (off the request path). */
  observer: GenerationObserver;
  /** Ends a stream with the shutdown error once the shutdown grace period is over. */
  streamGuard?: { guardStream(events: AsyncIterable<SseEvent>): AsyncIterable<SseEvent> };
}

/** The `POST /messages` handler. */
export function createPostMessagesHandler(deps: MessagesRouteDeps): RequestHandler<Record<string, string>, unknown, MessageRequest> {
  return async (req: Request<Record<string, string>, unknown, MessageRequest>, res) => {
    const context = readMessagesContext(req, res, deps);
    const observed = deps.observer.begin(req.body, context);
    const outcome = await createMessage(deps.messages, req.body, context).catch((error: unknown) => deps.observer.failed(observed, error));
    // The caller's own provider key's rate-limit headers (src/messages/own-key-rate-limits.ts), if any.
    if (outcome.kind === 'message') {
      if (outcome.headers) for (const name in outcome.headers) res.setHeader(name, outcome.headers[name] as string);
      sendJson(res, outcome.message);
      deps.observer.answered(observed, outcome.message);
      return;
    }
    const writer = createSseWriter(res);
    writer.open(outcome.headers ?? {});
    // At a shutdown's deadline a stream still open ends with an in-band overloaded_error (src/lifecycle).
    const events = deps.streamGuard ? deps.streamGuard.guardStream(outcome.events) : outcome.events;
    await streamToClient(writer, deps.observer.observeStream(observed, events), deps.logger);
  };
}

/** Binds `POST /messages`; returns its handler, which the application also runs directly (src/http/direct-dispatch.ts). */
export function bindPostMessagesRoute(router: Router, deps: MessagesRouteDeps): RequestHandler<Record<string, string>, unknown, MessageRequest> {
  const handler = createPostMessagesHandler(deps);
  router.post('/messages', handler);
  return handler;
}
