/**
 * DeepSeek's thinking mode (its reasoner, and its current models by default) wants `reasoning_content` back on
 * the assistant messages of a turn that called tools, in every later request, and answers 400 (`The
 * reasoning_content in the thinking mode must be passed back to the API.`) when one lacks it. The AI SDK
 * writes the field only for non-empty reasoning, and a client may hand back no thinking at all: one that never
 * enabled thinking may drop the blocks it did not ask for, and a conversation that reached DeepSeek from another
 * vendor has none of DeepSeek's. Such messages get the field empty, which DeepSeek accepts. Pure on the
 * body's shape; it edits the body the package built, in place, as `transformRequestBody` expects.
 * @see https://api-docs.deepseek.com/guides/thinking_mode
 */

type ChatMessage = Record<string, unknown>;

/**
 * Gives every assistant message of a tool-calling turn (the messages between two user messages, when one of
 * them has `tool_calls`) a `reasoning_content`, empty where the conversation has none. Turns without tool calls
 * are left alone: DeepSeek ignores their reasoning.
 */
export function fillToolTurnReasoning(body: Record<string, unknown>): Record<string, unknown> {
  const messages = body.messages;
  if (!Array.isArray(messages)) return body;
  let turn: ChatMessage[] = [];
  const close = () => {
    const assistants = turn.filter((message) => message.role === 'assistant');
    if (assistants.some((message) => Array.isArray(message.tool_calls) && message.tool_calls.length > 0)) {
      for (const message of assistants) message.reasoning_content ??= '';
    }
    turn = [];
  };
  for (const message of messages as ChatMessage[]) {
    if (message.role === 'user') close();
    else turn.push(message);
  }
  close();
  return body;
}
