/**
 * Tool names for vendors stricter than Anthropic. Anthropic takes names of up to 128 characters; OpenAI
 * (Chat Completions and Responses), Gemini and Bedrock refuse the whole request with a 400 when a function's
 * name is longer than 64 characters or holds anything but letters, digits, `_` and `-` (Gemini also wants a
 * letter or `_` first). Claude Code names its MCP tools `mcp__<server>__<tool>`, which often run past 64.
 * Such a name is replaced, in the tools, the tool choice and the conversation's calls and results, by a
 * stand-in: its first characters (made to fit) and a digest of the whole name, so the model still reads what
 * the tool is and the same name maps the same way on every turn. A tool search's result that says a tool is
 * now available (Claude Code's ToolSearch, before it calls an MCP tool) names the stand-in the model can call.
 * The answer's calls get the name back.
 */
import { createHash } from 'node:crypto';
import type { LanguageModelV4Content, LanguageModelV4Prompt, LanguageModelV4StreamPart, LanguageModelV4ToolResultOutput } from '@ai-sdk/provider';
import type { AiSdkCallOptions } from '#src/providers/ai-sdk/convert-to-ai-sdk-call-options.ts';
import { toolReferenceText } from '#src/providers/ai-sdk/convert-to-ai-sdk-parts.ts';

/** What every translated vendor takes as a function name (the intersection of their rules). */
const VENDOR_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const DIGEST_LENGTH = 8;
// The kept start, the `_` and the digest fill the 64 characters.
const KEPT_LENGTH = 64 - 1 - DIGEST_LENGTH;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The call options with stand-in names, and the way back. */
export interface ToolNameMapping {
  callOptions: AiSdkCallOptions;
  /** Vendor name to the client's name; empty when every name fits. */
  toClient: ReadonlyMap<string, string>;
}

const NO_NAMES: ReadonlyMap<string, string> = new Map();

function digest(name: string, attempt: number): string {
  const bytes = createHash('sha256').update(attempt === 0 ? name : `${name}#${attempt}`).digest();
  let text = '';
  for (let index = 0; index < DIGEST_LENGTH; index += 1) text += ALPHABET[(bytes[index] as number) % ALPHABET.length];
  return text;
}

/** The stand-in for `name` (`attempt` > 0 only when an earlier stand-in was taken). */
export function vendorToolName(name: string, attempt = 0): string {
  let start = name.replace(/[^A-Za-z0-9_-]/g, '_');
  if (!/^[A-Za-z_]/.test(start)) start = `_${start}`;
  return `${start.slice(0, KEPT_LENGTH)}_${digest(name, attempt)}`;
}

/** Whether a function name the call options use is one no translated vendor takes; a plain loop, as it runs on every request. */
function hasMisfit(options: AiSdkCallOptions): boolean {
  for (const tool of options.tools ?? []) if (tool.type === 'function' && !VENDOR_NAME.test(tool.name)) return true;
  for (const message of options.prompt) {
    if (message.role !== 'assistant' && message.role !== 'tool') continue;
    for (const part of message.content) if ((part.type === 'tool-call' || part.type === 'tool-result') && !VENDOR_NAME.test(part.toolName)) return true;
  }
  return false;
}

/** Every function name the call options use: the tools offered and the conversation's calls and results (a vendor's own tools keep theirs). */
function namesOf(options: AiSdkCallOptions): Set<string> {
  const names = new Set<string>();
  for (const tool of options.tools ?? []) if (tool.type === 'function') names.add(tool.name);
  for (const message of options.prompt) {
    if (message.role !== 'assistant' && message.role !== 'tool') continue;
    for (const part of message.content) if (part.type === 'tool-call' || part.type === 'tool-result') names.add(part.toolName);
  }
  return names;
}

// What follows the name in every tool reference's text (see `toolReferenceText`), to skip results that hold none.
const REFERENCE_END = toolReferenceText('\u0000').split('\u0000')[1] as string;

/** `text` with each tool reference to a replaced name naming its stand-in. */
function renameReferences(text: string, toVendor: ReadonlyMap<string, string>): string {
  if (!text.includes(REFERENCE_END)) return text;
  let renamed = text;
  for (const [name, standIn] of toVendor) renamed = renamed.replaceAll(toolReferenceText(name), toolReferenceText(standIn));
  return renamed;
}

function renameOutput(output: LanguageModelV4ToolResultOutput, toVendor: ReadonlyMap<string, string>): LanguageModelV4ToolResultOutput {
  if (output.type === 'text' || output.type === 'error-text') return { ...output, value: renameReferences(output.value, toVendor) };
  if (output.type === 'content') return { ...output, value: output.value.map((item) => (item.type === 'text' ? { ...item, text: renameReferences(item.text, toVendor) } : item)) };
  return output;
}

function renamePrompt(prompt: LanguageModelV4Prompt, toVendor: ReadonlyMap<string, string>): LanguageModelV4Prompt {
  return prompt.map((message) => {
    if (message.role === 'assistant') {
      return { ...message, content: message.content.map((part) => (part.type === 'tool-call' || part.type === 'tool-result' ? { ...part, toolName: toVendor.get(part.toolName) ?? part.toolName } : part)) };
    }
    if (message.role === 'tool') {
      return {
        ...message,
        content: message.content.map((part) => (part.type === 'tool-result' ? { ...part, toolName: toVendor.get(part.toolName) ?? part.toolName, output: renameOutput(part.output, toVendor) } : part)),
      };
    }
    return message;
  });
}

/** Replaces the names no translated vendor takes; the options are not modified, and returned as they are when all fit. */
export function mapToolNames(options: AiSdkCallOptions): ToolNameMapping {
  if (!hasMisfit(options)) return { callOptions: options, toClient: NO_NAMES };
  const names = namesOf(options);
  const taken = new Set([...names].filter((name) => VENDOR_NAME.test(name)));
  const toVendor = new Map<string, string>();
  const toClient = new Map<string, string>();
  for (const name of names) {
    if (VENDOR_NAME.test(name)) continue;
    let attempt = 0;
    let candidate = vendorToolName(name);
    while (taken.has(candidate)) candidate = vendorToolName(name, (attempt += 1));
    taken.add(candidate);
    toVendor.set(name, candidate);
    toClient.set(candidate, name);
  }
  const rename = (name: string) => toVendor.get(name) ?? name;
  const { tools, toolChoice } = options;
  const callOptions: AiSdkCallOptions = {
    ...options,
    prompt: renamePrompt(options.prompt, toVendor),
    ...(tools ? { tools: tools.map((tool) => (tool.type === 'function' ? { ...tool, name: rename(tool.name) } : tool)) } : {}),
    ...(toolChoice?.type === 'tool' ? { toolChoice: { ...toolChoice, toolName: rename(toolChoice.toolName) } } : {}),
  };
  return { callOptions, toClient };
}

/** The answer's content with the client's names back where the vendor used a stand-in. */
export function restoreToolNames(content: LanguageModelV4Content[], toClient: ReadonlyMap<string, string>): LanguageModelV4Content[] {
  if (toClient.size === 0) return content;
  return content.map((part) => (part.type === 'tool-call' || part.type === 'tool-result' ? { ...part, toolName: toClient.get(part.toolName) ?? part.toolName } : part));
}

/** One stream part with the client's name back where the vendor used a stand-in. */
export function restoreStreamToolName(part: LanguageModelV4StreamPart, toClient: ReadonlyMap<string, string>): LanguageModelV4StreamPart {
  switch (part.type) {
    case 'tool-input-start':
    case 'tool-call':
    case 'tool-result': {
      const name = toClient.get(part.toolName);
      return name === undefined ? part : { ...part, toolName: name };
    }
    default:
      return part;
  }
}
