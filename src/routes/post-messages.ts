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

/** Dependencies of the messages routes. */
export interface MessagesRouteDeps {
  messages: MessagesDeps;
  logger: Logger;
  requestTimeoutMs: number;
}

/** Binds `POST /messages`. */
export function bindPostMessagesRoute(router: Router, deps: MessagesRouteDeps): void {
  router.post('/messages', async (req: Request<Record<string, string>, unknown, MessageRequest>, res) => {
    const startedAt = performance.now();
    const caller = callerOf(res);
    const signal = requestSignal(req, res, deps.requestTimeoutMs);
    const outcome = await createMessage(deps.messages, {
      request: req.body,
      context: { accountId: caller.accountId, workspaceId: caller.workspaceId, keyHash: caller.keyHash, headers: req.headers },
      wantsMetadata: wantsGatewayMetadata(req.headers),
      signal,
      startedAt,
      generationId: res.locals.generationId as string,
    });
    if (outcome.kind === 'message') {
      res.json(outcome.message);
      return;
    }
    const writer = createSseWriter(res);
    writer.open({});
    await streamToClient(writer, outcome.events, deps.logger);
  });
}
