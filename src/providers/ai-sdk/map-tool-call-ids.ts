/**
 * Tool-call ids for vendors that accept only short ones (the `toolCallIdMaxLength` quirk; Mistral wants exactly
 * nine letters and digits). The conversation's ids (Anthropic's `toolu_…`, OpenAI's `call_…`) are replaced in
 * the prompt by ids of exactly that many letters and digits, derived from the original so the same id maps the
 * same way on every turn; ids already of that form pass unchanged. The answer's ids are mapped back, so an id
 * the client knows comes back as the client sent it.
 */
import { createHash } from 'node:crypto';
import type { LanguageModelV4Content, LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider';

/** The vendor's id for each id of the conversation that had to change, and the way back. */
export interface ToolCallIdMapping {
  prompt: LanguageModelV4Prompt;
  /** Vendor id to the client's id; empty when no id changed. */
  toClient: ReadonlyMap<string, string>;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function shortId(original: string, length: number, attempt: number): string {
  const digest = createHash('sha256').update(attempt === 0 ? original : `${original}#${attempt}`).digest();
  let id = '';
  for (let index = 0; index < length; index += 1) id += ALPHABET[(digest[index % digest.length] as number) % ALPHABET.length];
  return id;
}

function idsOf(prompt: LanguageModelV4Prompt): Set<string> {
  const ids = new Set<string>();
  for (const message of prompt) {
    if (message.role !== 'assistant' && message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-call' || part.type === 'tool-result') ids.add(part.toolCallId);
  }
  return ids;
}

/** Replaces the prompt's tool-call ids that are not `length` letters and digits; the prompt is not modified. */
export function mapToolCallIds(prompt: LanguageModelV4Prompt, length: number): ToolCallIdMapping {
  const accepted = new RegExp(`^[A-Za-z0-9]{${length}}$`);
  const ids = idsOf(prompt);
  const toVendor = new Map<string, string>();
  const toClient = new Map<string, string>();
  const taken = new Set([...ids].filter((id) => accepted.test(id)));
  for (const id of ids) {
    if (accepted.test(id)) continue;
    let attempt = 0;
    let candidate = shortId(id, length, attempt);
    while (taken.has(candidate)) candidate = shortId(id, length, (attempt += 1));
    taken.add(candidate);
    toVendor.set(id, candidate);
    toClient.set(candidate, id);
  }
  if (toVendor.size === 0) return { prompt, toClient };
  const mapped = prompt.map((message) => {
    if (message.role === 'assistant') {
      return { ...message, content: message.content.map((part) => (part.type === 'tool-call' ? { ...part, toolCallId: toVendor.get(part.toolCallId) ?? part.toolCallId } : part)) };
    }
    if (message.role === 'tool') {
      return { ...message, content: message.content.map((part) => (part.type === 'tool-result' ? { ...part, toolCallId: toVendor.get(part.toolCallId) ?? part.toolCallId } : part)) };
    }
    return message;
  });
  return { prompt: mapped, toClient };
}

/** The answer's content with the client's ids back where the vendor used a mapped one. */
export function restoreToolCallIds(content: LanguageModelV4Content[], toClient: ReadonlyMap<string, string>): LanguageModelV4Content[] {
  if (toClient.size === 0) return content;
  return content.map((part) => (part.type === 'tool-call' || part.type === 'tool-result' ? { ...part, toolCallId: toClient.get(part.toolCallId) ?? part.toolCallId } : part));
}

/** One stream part with the client's id back where the vendor used a mapped one. */
export function restoreStreamToolCallId(part: LanguageModelV4StreamPart, toClient: ReadonlyMap<string, string>): LanguageModelV4StreamPart {
  switch (part.type) {
    case 'tool-input-start':
    case 'tool-input-delta':
    case 'tool-input-end': {
      const id = toClient.get(part.id);
      return id === undefined ? part : { ...part, id };
    }
    case 'tool-call':
    case 'tool-result': {
      const id = toClient.get(part.toolCallId);
      return id === undefined ? part : { ...part, toolCallId: id };
    }
    default:
      return part;
  }
}
