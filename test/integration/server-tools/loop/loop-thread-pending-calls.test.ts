/**
 * Over HTTP, a threaded tool loop that ends on gateway tool calls the upstream never got results for, with a
 * fake Anthropic upstream that enforces what Anthropic does: a thread's `continue` must start with a user turn
 * holding a `tool_result` for every `tool_use` of the thread's last answer (its 400 `invalid_request_error`
 * otherwise). Two endings leave such calls: a step with gateway and client tool calls (the gateway runs its
 * calls and answers `tool_use` for the client's), and a final turn whose model still called a gateway tool
 * after the loop stopped (`max_tool_calls`: a `pause_turn`). Before, the client's continue carried only its own
 * messages and the upstream refused it; now the gateway keeps the results it gave the client with the
 * thread's pin and puts them, by the model's call ids, at the start of the continue's first user turn, with
 * or without the gateway tools on the continue (plain request or tool loop).
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import type { RecordedRequest } from '#test/helpers/fake-upstreams/index.ts';
import { anthropicClient, anthropicProviderYaml, apiKeyOf, catalogYaml, modelYaml, SHARED_KEYS } from '#test/integration/routing/routing-support.ts';
import { startThreadingUpstream, type HeldAnswer, type ThreadBody as HeldThreadBody, type ThreadingUpstream } from '#test/integration/routing/threading-upstream.ts';

const THREADS_BETA = 'message-threads-2026-08-12';
const DATETIME = { type: 'gateway:datetime', timezone: 'Europe/Paris' };
const LOOKUP = { name: 'lookup_order', description: 'Looks an order up.', input_schema: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] } };
const USAGE = { input: 40, output: 8 };

interface Block {
  type: string;
  tool_use_id?: string;
  text?: string;
}
interface ThreadBody {
  thread?: { type: string; previous_message_id?: string };
  messages: { role: string; content: string | Block[] }[];
}

function invalid(message: string) {
  return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message }, request_id: 'req_011PendingCalls' } };
}

/** Anthropic's rule for a continue: the first turn is a user turn that opens with a result for each call. */
function unansweredCalls(body: ThreadBody, calls: readonly string[]): string[] {
  const first = body.messages[0];
  if (first?.role !== 'user' || typeof first.content === 'string') return calls.slice();
  const leading: string[] = [];
  for (const block of first.content) {
    if (block.type !== 'tool_result') break;
    leading.push(block.tool_use_id ?? '');
  }
  return calls.filter((id) => !leading.includes(id));
}

// Anthropic's 404 for a continue naming a thread the account does not hold.
const LOST = { type: 'error', error: { type: 'not_found_error', message: 'No thread found for previous_message_id.', details: { error_code: 'thread_not_found' } } };

/** Anthropic's 400 for a continue whose first turn leaves a call of the answer it continues without a result. */
function pendingCalls(body: HeldThreadBody, previous: HeldAnswer) {
  const calls = previous.content.filter((block) => block.type === 'tool_use').map((block) => block.id ?? '');
  const missing = unansweredCalls(body as ThreadBody, calls);
  if (missing.length === 0) return undefined;
  return invalid(
    `messages.0: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
  );
}

let alpha: ThreadingUpstream;
let gateway: TestGateway;
let client: Anthropic;

beforeAll(async () => {
  alpha = await startThreadingUpstream(LOST, pendingCalls);
  const providers = [anthropicProviderYaml('alpha', alpha.upstream)];
  const models = [modelYaml('test/claude', [{ provider: 'alpha', model: 'up-claude-alpha', price: [3, 15] }])];
  gateway = await startTestGateway({ catalogYaml: catalogYaml(providers, models) });
  client = anthropicClient(gateway);
});
afterAll(async () => {
  await gateway?.close();
  await alpha?.upstream.close();
});
beforeEach(() => alpha.upstream.clear());

function bodyOf(request: RecordedRequest | undefined): ThreadBody {
  return request?.body as ThreadBody;
}

async function send(params: Record<string, unknown>, stream: boolean): Promise<Anthropic.Beta.BetaMessage> {
  const full = { model: 'test/claude', max_tokens: 256, betas: [THREADS_BETA], ...params } as never;
  if (!stream) return client.beta.messages.create(full);
  return client.beta.messages.stream(full).finalMessage();
}

describe.each([
  ['JSON, continued without tools', false, false],
  ['stream, continued without tools', true, false],
  ['JSON, continued through the tool loop', false, true],
  ['stream, continued through the tool loop', true, true],
])('a threaded loop that ends on gateway calls the upstream never answered (%s)', (_name, stream, loopOnContinue) => {
  const tools = loopOnContinue ? { tools: [DATETIME, LOOKUP] } : {};

  it('gateway and client calls in one step: the continue starts with the gateway’s results, then the client’s', async () => {
    alpha.answer(
      {
        text: 'Let me check.',
        calls: [
          { name: 'datetime', input: { timezone: 'Europe/Paris' }, id: 'toolu_01GatewayCall' },
          { name: 'lookup_order', input: { order: 'A-17' }, id: 'toolu_01ClientCall' },
        ],
        usage: USAGE,
      },
      SHARED_KEYS.alpha,
    );
    const created = await send({ messages: [{ role: 'user', content: 'Where is order A-17, and what time is it?' }], tools: [DATETIME, LOOKUP], thread: { type: 'create' } }, stream);
    expect(created.stop_reason).toBe('tool_use');
    expect(created.content.map((block) => block.type)).toEqual(['text', 'server_tool_use', 'tool_use', 'datetime_tool_result']);
    const clientCall = created.content.find((block) => block.type === 'tool_use') as { id: string };

    alpha.upstream.clear();
    alpha.answer({ text: 'Order A-17 ships today; it is 15:00 in Paris.', usage: USAGE }, SHARED_KEYS.alpha);
    const next = await send(
      {
        messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: clientCall.id, content: 'A-17: ships today' }] }],
        thread: { type: 'continue', previous_message_id: created.id },
        ...tools,
      },
      stream,
    );

    expect(next.content).toEqual([expect.objectContaining({ type: 'text', text: 'Order A-17 ships today; it is 15:00 in Paris.' })]);
    expect(alpha.upstream.requests).toHaveLength(1);
    const sent = bodyOf(alpha.upstream.requests[0]);
    expect(sent.thread).toEqual({ type: 'continue', previous_message_id: created.id });
    expect(sent.messages).toHaveLength(1);
    expect(sent.messages[0]?.content).toEqual([
      expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_01GatewayCall' }),
      expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_01ClientCall', content: 'A-17: ships today' }),
    ]);
  });

  it('a pause_turn after max_tool_calls: the continue from the loop’s last step starts with its not-run result', async () => {
    alpha.answer({ calls: [{ name: 'datetime', input: { timezone: 'Europe/Paris' }, id: 'toolu_01FirstCall' }], usage: USAGE }, SHARED_KEYS.alpha);
    // The final turn (tools disabled) still calls the tool: the loop pauses there.
    const last = alpha.answer({ text: 'Once more.', calls: [{ name: 'datetime', input: { timezone: 'Asia/Tokyo' }, id: 'toolu_01PausedCall' }], usage: USAGE }, SHARED_KEYS.alpha);
    const created = await send({ messages: [{ role: 'user', content: 'What time is it in Paris and Tokyo?' }], tools: [DATETIME], max_tool_calls: 1, thread: { type: 'create' } }, stream);
    expect(created.stop_reason).toBe('pause_turn');

    alpha.upstream.clear();
    alpha.answer({ text: 'Paris 15:00, Tokyo 23:00.', usage: USAGE }, SHARED_KEYS.alpha);
    const next = await send({ messages: [{ role: 'user', content: 'Go on.' }], thread: { type: 'continue', previous_message_id: created.id }, ...(loopOnContinue ? { tools: [DATETIME] } : {}) }, stream);

    expect(next.content).toEqual([expect.objectContaining({ type: 'text', text: 'Paris 15:00, Tokyo 23:00.' })]);
    expect(alpha.upstream.requests.map(apiKeyOf)).toEqual([SHARED_KEYS.alpha]);
    const sent = bodyOf(alpha.upstream.requests[0]);
    expect(sent.thread).toEqual({ type: 'continue', previous_message_id: last });
    expect(sent.messages).toEqual([
      {
        role: 'user',
        content: [expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_01PausedCall', is_error: true }), { type: 'text', text: 'Go on.' }],
      },
    ]);
  });
});
