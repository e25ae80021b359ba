/**
 * The effort a request's answer is generated at, as the client asked it. Anthropic's per-message effort puts
 * `output_config.effort` on a `role: "system"` message (Claude Code does so on the 5.5 models, mid-conversation);
 * the answer comes after every message, so the last system message setting one wins over the top-level
 * `output_config.effort`. Read by the translators (which also check each value) and the auto-router.
 */
import type { MessageRequest, SystemMessageParam } from '#src/api-types.ts';

/** The effective effort as sent (unchecked), or undefined when neither the request nor a system message sets one. */
export function requestedEffort(request: Pick<MessageRequest, 'output_config' | 'messages'>): string | undefined {
  let effort = request.output_config?.effort ?? undefined;
  for (const message of request.messages) {
    if (message.role !== 'system') continue;
    const set = (message as SystemMessageParam).output_config?.effort;
    if (set !== undefined && set !== null) effort = set;
  }
  return effort;
}
