/**
 * A fake of OpenAI's moderation endpoint (`POST /v1/moderations`), answering scripted `reply.json` bodies built
 * with `moderationAnswer`, in the shape the official SDK types (`ModerationCreateResponse`:
 * node_modules/openai/resources/moderations.d.ts) and OpenAI's API reference give: `id`, `model`, and one
 * result per input with `flagged`, every category's boolean, its score and the input types it applies to.
 * Errors are OpenAI's error bodies. No recording of this endpoint exists in the shared recordings.
 * @see https://developers.openai.com/api/reference/resources/moderations
 */
import { startFakeUpstream, type FakeUpstream, type FakeUpstreamOptions } from './fake-server.ts';
import { openAiError } from './openai-error.ts';
import { reply, type JsonReply } from './fake-reply.ts';
import type { WireFormat } from './wire-format.ts';

/** The categories omni-moderation scores, and the input types each applies to. */
const CATEGORIES: Record<string, readonly string[]> = {
  harassment: ['text'],
  'harassment/threatening': ['text'],
  hate: ['text'],
  'hate/threatening': ['text'],
  illicit: ['text'],
  'illicit/violent': ['text'],
  'self-harm': ['text', 'image'],
  'self-harm/intent': ['text', 'image'],
  'self-harm/instructions': ['text', 'image'],
  sexual: ['text', 'image'],
  'sexual/minors': ['text'],
  violence: ['text', 'image'],
  'violence/graphic': ['text', 'image'],
};

/** The moderation API's wire format: JSON only, any path ending in `/moderations`. */
export function openAiModerationsFormat(): WireFormat {
  return {
    fixtureVendor: 'openai-chat',
    route: (method, path) => (method === 'POST' && path.endsWith('/moderations') ? { operation: 'moderations', params: {} } : undefined),
    streamContentType: 'application/json',
    encodeEvent: (payload) => Buffer.from(JSON.stringify(payload)),
    errorFor: openAiError,
  };
}

/** One result: the categories named in `flagged` are true with the given score, every other false and low. */
export function moderationResult(flagged: Record<string, number> = {}) {
  const names = Object.keys(CATEGORIES);
  return {
    flagged: Object.keys(flagged).length > 0,
    categories: Object.fromEntries(names.map((name) => [name, name in flagged])),
    category_scores: Object.fromEntries(names.map((name) => [name, flagged[name] ?? 0.0001])),
    category_applied_input_types: Object.fromEntries(names.map((name) => [name, name in flagged ? ['text'] : CATEGORIES[name]])),
  };
}

/** A 200 answer with one result per entry of `results` (one per input the gateway sent). */
export function moderationAnswer(results: ReturnType<typeof moderationResult>[]): JsonReply {
  return reply.json({ id: `modr-${Math.random().toString(16).slice(2, 14)}`, model: 'omni-moderation-latest', results });
}

/** Starts the fake; `baseURL` is origin + `/v1`, as the `openai` SDK expects. */
export function startFakeOpenAiModerations(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  return startFakeUpstream(openAiModerationsFormat(), options, '/v1');
}
