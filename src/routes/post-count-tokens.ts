/** `POST /messages/count_tokens`: the input token count of a request on the model it names. */
import type { Request, Router } from 'express';
import type { CountTokensRequest } from '#src/api-types.ts';
import { readMessagesContext } from '#src/http/messages-context.ts';
import { countTokens } from '#src/messages/count-tokens.ts';
import type { MessagesRouteDeps } from '#src/routes/post-messages.ts';

/** Binds `POST /messages/count_tokens`. */
export function bindPostCountTokensRoute(router: Router, deps: MessagesRouteDeps): void {
  router.post('/messages/count_tokens', async (req: Request<Record<string, string>, unknown, CountTokensRequest>, res) => {
    res.json(await countTokens(deps.messages, req.body, readMessagesContext(req, res, deps)));
  });
}
