/** `POST /messages`: create a message through the gateway's routing, as JSON or an event stream. */
import type { Request, Router } from 'express';
import type { MessageRequest } from '#src/api-types.ts';
import { callerOf } from '#src/http/caller.ts';
import { createSseWriter } from '#src/http/sse-writer.ts';
import { streamToClient } from '#src/http/stream-to-client.ts';
import { createMessage, type MessagesDeps } from '#src/messages/create-message.ts';
import { wantsGatewayMetadata } from '#src/messages/gateway-metadata.ts';
import { requestSignal } from '#src/http/request-signal.ts';
import type { Logger } from '#src/logger.ts';
import type { GenerationObserver } from '#src/observability/generation-observer.ts';

/** Dependencies of the messages routes. */
export interface MessagesRouteDeps {
  messages: MessagesDeps;
  logger: Logger;
  requestTimeoutMs: number;
  /** Records every request's outcome (off the request path). */
  observer: GenerationObserver;
}

/** Binds `POST /messages`. */
export function bindPostMessagesRoute(router: Router, deps: MessagesRouteDeps): void {
  router.post('/messages', async (req: Request<Record<string, string>, unknown, MessageRequest>, res) => {
    const startedAt = performance.now();
    const caller = callerOf(res);
    const signal = requestSignal(req, res, deps.requestTimeoutMs);
    const generationId = res.locals.generationId as string;
    const observed = deps.observer.begin({ id: generationId, startedAt, caller, request: req.body, headers: req.headers });
    const outcome = await createMessage(deps.messages, {
      request: req.body,
      context: { accountId: caller.accountId, workspaceId: caller.workspaceId, keyHash: caller.keyHash, headers: req.headers },
      wantsMetadata: wantsGatewayMetadata(req.headers),
      signal,
      startedAt,
      generationId,
    }).catch((error: unknown) => deps.observer.failed(observed, error, signal));
    if (outcome.kind === 'message') {
      res.json(outcome.message);
      deps.observer.answered(observed, outcome.message, outcome.trail);
      return;
    }
    const writer = createSseWriter(res);
    writer.open({});
    await streamToClient(writer, deps.observer.observeStream(observed, outcome.trail, outcome.events), deps.logger);
  });
}
