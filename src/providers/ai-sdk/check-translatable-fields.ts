/**
 * What a translated vendor can be sent, field by field, before any conversion: the spec lets through anything
 * Anthropic may add, so the translators must know every field and property they read or deliberately drop.
 * A top-level field they do not know, or an unknown property inside a known object, is an
 * `UnsupportedFeatureError` naming it; hints whose loss cannot change the answer are dropped with a warning,
 * and their field paths are listed for the client (`X-Switchboard-Dropped-Fields`).
 * A field or property set to null is one left out, as Anthropic reads it.
 * Unknown `type` values, roles and enum values are refused by the converters that read them.
 */
import type { MessageRequest } from '#src/api-types.ts';
import { BadRequestError, UnsupportedFeatureError } from '#src/errors.ts';
import { ThreadUnsupportedError } from '#src/thread-errors.ts';
import type { AiSdkVendorProfile } from '#src/providers/ai-sdk/ai-sdk-vendor-profile.ts';
import { GATEWAY_ONLY_FIELDS } from '#src/request/gateway-fields.ts';
import { contentBlocks, isKnownRole } from '#src/request/message-content.ts';

/** Anthropic's code for a model that cannot take tool changes mid-conversation. */
export type ToolChangesErrorCode = 'mid_conversation_tool_changes_not_supported';

// The block types of Anthropic's `mid-conversation-tool-changes` beta.
const TOOL_CHANGE_BLOCKS: ReadonlySet<string> = new Set(['tool_addition', 'tool_removal']);

/**
 * 400: a tool change block (`tool_addition`, `tool_removal`) for a vendor that cannot express it, in Anthropic's
 * code for a model without the feature (`error.details.error_code`): on it Claude Code stops sending tool changes
 * to that model and announces late tools its other way, instead of trying again after every `/clear`.
 */
export class ToolChangesUnsupportedError extends UnsupportedFeatureError {
  readonly errorCode: ToolChangesErrorCode = 'mid_conversation_tool_changes_not_supported';
}

/** The code to show for `error`, when it is a tool changes refusal. */
export function toolChangesErrorCodeOf(error: unknown): ToolChangesErrorCode | undefined {
  return error instanceof ToolChangesUnsupportedError ? error.errorCode : undefined;
}

/** The 400 a translator answers for something its vendor cannot express. */
export function unsupportedFeature(what: string, profile: Pick<AiSdkVendorProfile, 'label'>): UnsupportedFeatureError {
  return new UnsupportedFeatureError(`${what} is not supported by ${profile.label}`);
}

/** The refusal of a content block of `type` (`where` names it), in Anthropic's code for tool changes when it is one. */
export function unsupportedBlockType(type: string, where: string, profile: Pick<AiSdkVendorProfile, 'label'>): UnsupportedFeatureError {
  const message = `${type} blocks in ${where} is not supported by ${profile.label}`;
  return TOOL_CHANGE_BLOCKS.has(type) ? new ToolChangesUnsupportedError(message) : new UnsupportedFeatureError(message);
}

/** The properties of one Anthropic object a translator reads, and the hints it drops (with the reason). */
interface PropertyRule {
  read: readonly string[];
  hints?: Readonly<Record<string, string>>;
}

const CITATIONS = { citations: 'citations are Anthropic’s' };

/** The Anthropic top-level fields the translators read or deliberately drop; the gateway's own are the router's. */
export const TRANSLATED_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'system',
  'max_tokens',
  'metadata',
  'stop_sequences',
  'stream',
  'temperature',
  'top_k',
  'top_p',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
  'service_tier',
  'context_management',
  ...GATEWAY_ONLY_FIELDS,
]);

/**
 * Anthropic top-level fields whose loss cannot change the answer, only what Anthropic would add around it:
 * dropped with a warning. (`context_management` is warned about on its own, below.)
 */
const DROPPED_FIELDS: ReadonlyMap<string, string> = new Map([
  ['diagnostics', 'Anthropic’s prompt-cache diagnostics have no counterpart; the answer carries none'],
  ['fallback_credit_token', 'a refusal’s cache credit is redeemable on Anthropic only'],
]);

/** `service_tier` values that mean nothing outside Anthropic's capacity tiers, so they are accepted there. */
const SERVICE_TIERS: ReadonlySet<string> = new Set(['auto', 'standard_only']);

/** Rules per Anthropic object, keyed by its kind (`thinking:enabled`, `block:text`, `source:base64`, ...). */
export const PROPERTY_RULES: Readonly<Record<string, PropertyRule>> = {
  'thinking:enabled': { read: ['type', 'budget_tokens'], hints: { display: 'how Anthropic shows thinking; other vendors return reasoning as they make it' } },
  'thinking:adaptive': { read: ['type'], hints: { display: 'how Anthropic shows thinking; other vendors return reasoning as they make it' } },
  'thinking:disabled': { read: ['type'] },
  'tool_choice:auto': { read: ['type', 'disable_parallel_tool_use'] },
  'tool_choice:any': { read: ['type', 'disable_parallel_tool_use'] },
  'tool_choice:none': { read: ['type', 'disable_parallel_tool_use'] },
  'tool_choice:tool': { read: ['type', 'name', 'disable_parallel_tool_use'] },
  output_config: { read: ['effort', 'format'] },
  'format:json_schema': { read: ['type', 'schema'] },
  tool: {
    read: ['type', 'name', 'description', 'input_schema', 'cache_control', 'strict', 'input_examples'],
    hints: {
      defer_loading: 'the tool is offered at once',
      eager_input_streaming: 'a streaming hint of Anthropic’s',
      allowed_callers: 'only Anthropic’s code execution calls tools',
    },
  },
  message: { read: ['role', 'content'] },
  // Anthropic's per-message effort; `format` stays top-level only.
  'message:system': { read: ['role', 'content', 'output_config'] },
  'message:output_config': { read: ['effort'] },
  'block:text': { read: ['type', 'text', 'cache_control'], hints: CITATIONS },
  'block:image': { read: ['type', 'source', 'cache_control'] },
  'block:document': { read: ['type', 'source', 'title', 'cache_control'], hints: { ...CITATIONS, context: 'document context is Anthropic’s' } },
  // A content document's context goes with its text (convert-to-ai-sdk-parts.ts).
  'block:document:content': { read: ['type', 'source', 'title', 'context', 'cache_control'], hints: CITATIONS },
  'block:search_result': { read: ['type', 'source', 'title', 'content', 'cache_control'], hints: CITATIONS },
  'block:tool_use': { read: ['type', 'id', 'name', 'input', 'cache_control'], hints: { caller: 'only Anthropic records who called a tool' } },
  'block:tool_result': { read: ['type', 'tool_use_id', 'content', 'is_error', 'cache_control'] },
  'block:thinking': { read: ['type', 'thinking', 'signature'] },
  'block:redacted_thinking': { read: ['type', 'data'] },
  // Its marker, as any block's inside a tool result, is a breakpoint of that tool result (cache-breakpoints.ts).
  'block:tool_reference': { read: ['type', 'tool_name', 'cache_control'] },
  'source:base64': { read: ['type', 'media_type', 'data'] },
  'source:url': { read: ['type', 'url'] },
  'source:text': { read: ['type', 'media_type', 'data'] },
  'source:content': { read: ['type', 'content'] },
};

// A hint set to nothing (null, false, an empty list) drops nothing worth a warning.
function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false && !(Array.isArray(value) && value.length === 0);
}

function typeOf(value: object): string {
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' ? type : '';
}

/** What a check drops: a warning per field for the log, and the fields' paths for the client. */
export interface DroppedFields {
  warnings: string[];
  /** Field paths, array indexes as `[]` (`messages[].content[].citations`): never values. */
  dropped: string[];
}

// A field path without its array indexes: one entry per kind of field, however long the conversation.
function withoutIndexes(path: string): string {
  return path.includes('[') ? path.replace(/\[\d+\]/g, '[]') : path;
}

function drop(drops: DroppedFields, path: string, reason: string): void {
  drops.warnings.push(`${path} dropped: ${reason}`);
  drops.dropped.push(withoutIndexes(path));
}

// A `metadata` key is the client's own name: listed as it is only when it is a plain identifier, so the
// list stays a valid header value and one name cannot read as two.
const PLAIN_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * The distinct field paths a check dropped, sorted: what `X-Switchboard-Dropped-Fields` lists. Sorted so the
 * list reads the same whatever order the client wrote its fields in.
 */
export function droppedFieldList(dropped: readonly string[]): string[] {
  return [...new Set(dropped)].sort();
}

/** Checks one object against its rule; objects of a kind without a rule are left to their converter. */
function checkObject(value: unknown, kind: string, path: string, profile: AiSdkVendorProfile, drops: DroppedFields): void {
  const rule = PROPERTY_RULES[kind];
  if (!rule || typeof value !== 'object' || value === null) return;
  for (const [name, property] of Object.entries(value)) {
    // A null property is one left out, as Anthropic reads it: the SDKs send `clear_at: null` and the like.
    if (rule.read.includes(name) || property === null) continue;
    // Own keys only: a property named `constructor` or `toString` is no hint.
    const reason = rule.hints && Object.hasOwn(rule.hints, name) ? rule.hints[name] : undefined;
    if (reason === undefined) throw unsupportedFeature(`${path}.${name}`, profile);
    if (isSet(property)) drop(drops, `${path}.${name}`, reason);
  }
}

/**
 * A URL source the vendor is given must parse as a URL (WHATWG, as the vendor packages read it). The spec lets
 * any string through for Anthropic-format upstreams to judge; here a string that is not one is the client's
 * mistake, named without echoing it (a signed URL carries a credential).
 */
function checkSourceUrl(source: object, path: string): void {
  if (typeOf(source) !== 'url') return;
  const url = (source as { url?: unknown }).url;
  if (typeof url !== 'string' || !URL.canParse(url)) throw new BadRequestError(`${path}.url is not a valid URL`);
}

function checkBlocks(blocks: readonly unknown[], path: string, profile: AiSdkVendorProfile, drops: DroppedFields): void {
  blocks.forEach((block, index) => {
    if (typeof block !== 'object' || block === null) return;
    const where = `${path}[${index}]`;
    const type = typeOf(block);
    const source = (block as { source?: unknown }).source;
    const sourceType = typeof source === 'object' && source !== null ? typeOf(source) : '';
    checkObject(block, type === 'document' && sourceType === 'content' ? 'block:document:content' : `block:${type}`, where, profile, drops);
    if ((type === 'image' || type === 'document') && typeof source === 'object' && source !== null) {
      checkObject(source, `source:${sourceType}`, `${where}.source`, profile, drops);
      checkSourceUrl(source, `${where}.source`);
      const chunks = (source as { content?: unknown }).content;
      if (sourceType === 'content' && Array.isArray(chunks)) checkBlocks(chunks, `${where}.source.content`, profile, drops);
    }
    const nested = (block as { content?: unknown }).content;
    if ((type === 'tool_result' || type === 'search_result') && Array.isArray(nested)) checkBlocks(nested, `${where}.content`, profile, drops);
  });
}

// Anthropic's default geography, any: explicit, it overrides only an Anthropic workspace's default, which a
// translated vendor has none of. A geography (`us`) is a promise a translated vendor cannot be held to.
function asksForNothing(name: string, value: unknown): boolean {
  return name === 'inference_geo' && value === 'global';
}

/**
 * Checks every field and property of a request a translated vendor would receive; returns the warnings and
 * field paths of what it drops and throws `UnsupportedFeatureError` for the first thing it cannot express.
 */
export function checkTranslatableFields(request: Omit<MessageRequest, 'max_tokens'> & { max_tokens?: number }, profile: AiSdkVendorProfile): DroppedFields {
  const drops: DroppedFields = { warnings: [], dropped: [] };
  // Its own code: Anthropic SDKs (the tool runner threads by default) then send the whole conversation instead.
  if ('thread' in request && request.thread !== undefined && request.thread !== null) {
    throw new ThreadUnsupportedError(`field thread is not supported by ${profile.label}`);
  }
  const fields = request as Record<string, unknown>;
  for (const name of Object.keys(request)) {
    // `container: null`, `inference_geo: null`: a null field asks for nothing, as Anthropic reads it.
    if (TRANSLATED_FIELDS.has(name) || fields[name] === null || asksForNothing(name, fields[name])) continue;
    const dropped = DROPPED_FIELDS.get(name);
    if (dropped === undefined) throw unsupportedFeature(`field ${name}`, profile);
    if (isSet(fields[name])) drop(drops, name, dropped);
  }
  // Anthropic's cache pre-warming: other vendors either refuse a zero limit or would generate anyway.
  if (request.max_tokens === 0) throw unsupportedFeature('max_tokens 0 (prompt cache pre-warming)', profile);
  // Dropped, they would let the model write past the client's stop: the answer would change.
  if (request.stop_sequences?.length && !profile.stopSequences) throw unsupportedFeature('stop_sequences', profile);
  if (request.service_tier !== undefined && !SERVICE_TIERS.has(request.service_tier)) throw unsupportedFeature(`service_tier ${request.service_tier}`, profile);
  if (request.context_management) drop(drops, 'context_management', 'Anthropic context editing has no counterpart');
  for (const [name, value] of Object.entries(request.metadata ?? {})) {
    if (name === 'user_id' || !isSet(value)) continue;
    drops.warnings.push(`metadata.${name} dropped: only user_id is forwarded`);
    drops.dropped.push(PLAIN_NAME.test(name) ? `metadata.${name}` : 'metadata.*');
  }
  if (request.thinking) checkObject(request.thinking, `thinking:${request.thinking.type}`, 'thinking', profile, drops);
  if (request.tool_choice) checkObject(request.tool_choice, `tool_choice:${request.tool_choice.type}`, 'tool_choice', profile, drops);
  if (request.output_config) {
    checkObject(request.output_config, 'output_config', 'output_config', profile, drops);
    const format = request.output_config.format;
    if (format) checkObject(format, `format:${format.type}`, 'output_config.format', profile, drops);
  }
  (request.tools ?? []).forEach((tool, index) => {
    const type = ('type' in tool ? tool.type : undefined) ?? undefined;
    if (type === undefined || type === 'custom') checkObject(tool, 'tool', `tools[${index}]`, profile, drops);
  });
  if (Array.isArray(request.system)) checkBlocks(request.system, 'system', profile, drops);
  request.messages.forEach((message, index) => {
    if (!isKnownRole(message)) return;
    const system = message.role === 'system';
    checkObject(message, system ? 'message:system' : 'message', `messages[${index}]`, profile, drops);
    if (system && message.output_config) checkObject(message.output_config, 'message:output_config', `messages[${index}].output_config`, profile, drops);
    checkBlocks(contentBlocks(message), `messages[${index}].content`, profile, drops);
  });
  return drops;
}
