/**
 * What the `moderation` plugin screens and what it answers: the texts of the user turns, the verdict every
 * engine gives, and the refusal a flagged input gets (a normal message, or its event stream), built without
 * calling any model. Pure.
 * @see ModerationPlugin in openapi/components/schemas/plugins.yaml
 */
import type { MessageRequest, MessageResponse, MessageStreamEvent, RefusalDetails } from '#src/api-types.ts';
import { contentBlocks, stringContent } from '#src/request/message-content.ts';

/** An engine's verdict on the input. */
export interface ModerationVerdict {
  flagged: boolean;
  /** The moderation category (`violence`, `harassment/threatening`, ...); null when not flagged. */
  category: string | null;
  /** One sentence for the client. */
  explanation: string;
}

function documentText(block: { source?: unknown }): string | undefined {
  const source = block.source as { type?: unknown; data?: unknown } | undefined;
  return source?.type === 'text' && typeof source.data === 'string' ? source.data : undefined;
}

/**
 * The texts to screen, one per user turn: its string content, text blocks and plain-text documents (the text
 * of PDFs the file-parser read included). The system prompt and the assistant's turns are the operator's and
 * the model's, not input; tool results are the tools'.
 */
export function moderationTexts(request: Pick<MessageRequest, 'messages'>): string[] {
  const texts: string[] = [];
  for (const message of request.messages) {
    if (message.role !== 'user') continue;
    const parts = [stringContent(message)];
    for (const block of contentBlocks(message)) {
      if (block.type === 'text' && 'text' in block) parts.push(block.text);
      else if (block.type === 'document') parts.push(documentText(block as { source?: unknown }));
    }
    const text = parts.filter((part): part is string => part !== undefined && part.trim() !== '').join('\n\n');
    if (text !== '') texts.push(text);
  }
  return texts;
}

/** The refusal details of a flagged verdict. */
export function refusalDetails(verdict: ModerationVerdict): RefusalDetails {
  return { type: 'refusal', category: verdict.category ?? 'flagged', explanation: verdict.explanation };
}

/**
 * The message a flagged input is answered with: no content, `stop_reason: refusal`, zero tokens; `cost` is
 * what the screening was charged (a moderation model's call; OpenAI's endpoint is free).
 */
export function refusalMessage(request: Pick<MessageRequest, 'model'>, verdict: ModerationVerdict, generationId: string, cost = 0): MessageResponse {
  return {
    id: `msg_${generationId}`,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content: [],
    stop_reason: 'refusal',
    stop_sequence: null,
    refusal: refusalDetails(verdict),
    usage: { input_tokens: 0, output_tokens: 0, cost, is_byok: false },
  };
}

/** The same refusal as an event stream: `message_start`, `message_delta` with the refusal, `message_stop`. */
export function refusalEvents(message: MessageResponse): MessageStreamEvent[] {
  const { refusal, stop_reason: _stop, ...rest } = message;
  return [
    { type: 'message_start', message: { ...rest, content: [], stop_reason: null, usage: { input_tokens: 0, output_tokens: 0 } } },
    { type: 'message_delta', delta: { stop_reason: 'refusal', stop_sequence: null, ...(refusal ? { refusal } : {}) }, usage: { output_tokens: 0, cost: message.usage.cost ?? 0, is_byok: false } },
    { type: 'message_stop' },
  ];
}
