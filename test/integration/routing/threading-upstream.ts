/**
 * A fake Anthropic upstream with message threads kept per account, for the thread suites: each scripted answer
 * belongs to the account (API key) it is given to, and a `continue` naming an answer that account does not hold
 * is answered with Anthropic's 404 `thread_not_found`, as Anthropic answers a thread of another account.
 */
import { anthropicMessagesFormat, anthropicStep, startFakeUpstream, type FakeUpstream, type RecordedRequest, type ScriptedStep, type WireFormat } from '#test/helpers/fake-upstreams/index.ts';
import { apiKeyOf } from './routing-support.ts';

/** The `thread` and `messages` of a request the fake received. */
export interface ThreadBody {
  thread?: { type: string; previous_message_id?: string };
  messages: { role: string; content: unknown }[];
}

/** Anthropic's 404 body for a continue naming a thread the account does not hold, under the suite's `requestId`. */
export function threadLost(requestId: string) {
  return { type: 'error', error: { type: 'not_found_error', message: 'No thread found for previous_message_id.', details: { error_code: 'thread_not_found' } }, request_id: requestId };
}

/** What a scripted answer said, as far as a continue from it depends on it. */
export interface HeldAnswer {
  id: string;
  content: { type: string; id?: string }[];
}

/** A suite's own rule for a continue the account holds, checked before the scripted answer is given. */
export type ContinueCheck = (body: ThreadBody, previous: HeldAnswer) => { status: number; body: unknown } | undefined;

/** The fake and how to script it. */
export interface ThreadingUpstream {
  upstream: FakeUpstream;
  /** Scripts the next answer, given to the account of `key`, which may then continue from it; returns its id. */
  answer(step: ScriptedStep, key: string): string;
  /** A thread `key`'s account holds without the gateway having seen it (made with the key elsewhere). */
  hold(id: string, key: string): void;
}

/** Starts the fake; a lost thread is answered 404 with `lost`, a held one as `checkContinue` says first. */
export async function startThreadingUpstream(lost: unknown, checkContinue?: ContinueCheck): Promise<ThreadingUpstream> {
  const holder = new Map<string, unknown>();
  const answers = new Map<string, HeldAnswer>();
  const base = anthropicMessagesFormat();
  const format: WireFormat = {
    ...base,
    answerDirectly(request: RecordedRequest) {
      const body = request.body as ThreadBody | undefined;
      const thread = body?.thread;
      if (request.operation === 'messages' && body !== undefined && thread?.type === 'continue') {
        const previous = thread.previous_message_id ?? '';
        if (holder.get(previous) !== apiKeyOf(request)) return { status: 404, body: lost };
        const early = checkContinue?.(body, answers.get(previous) ?? { id: previous, content: [] });
        if (early) return early;
      }
      return base.answerDirectly?.(request);
    },
  };
  const upstream = await startFakeUpstream(format, {});
  return {
    upstream,
    answer(step, key) {
      const scripted = anthropicStep(step, {});
      const answer = (scripted.json as { body: HeldAnswer }).body;
      holder.set(answer.id, key);
      answers.set(answer.id, answer);
      upstream.enqueue(scripted);
      return answer.id;
    },
    hold(id, key) {
      holder.set(id, key);
    },
  };
}
