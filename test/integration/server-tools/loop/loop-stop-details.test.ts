/**
 * Over HTTP with the Anthropic SDK: what the last step of a tool loop said about how it ended reaches the
 * client as it would without the loop. A refusal after a tool step keeps Anthropic's `stop_details` (its
 * category and explanation) and a code-execution `container` is kept, in the JSON message and in the stream's
 * one `message_delta`, which the SDK's `finalMessage()` reads.
 */
import { describe, expect, it } from 'vitest';
import { anthropicStep } from '#test/helpers/fake-upstreams/index.ts';
import { loopBody, runLoop, useLoopGateway } from './loop-support.ts';

const setup = useLoopGateway();

const REFUSAL = { type: 'refusal', category: 'cyber', explanation: 'This request asks for help with an intrusion.' };
const CONTAINER = { id: 'container_011CScripted0001', expires_at: '2026-11-27T12:00:00Z' };

describe.each([false, true])('the last step of a tool loop (stream: %s)', (stream) => {
  it('a refusal after a tool step: stop_reason refusal with its stop_details', async () => {
    setup.alpha.enqueue(
      anthropicStep({ calls: [{ name: 'datetime', input: {} }], usage: { input: 20, output: 8 } }),
      anthropicStep({ text: 'I can\u2019t help with that.', stopReason: 'refusal', stopDetails: REFUSAL, usage: { input: 60, output: 9 } }),
    );
    const { message } = await runLoop(setup.gateway, loopBody('test/claude', [{ type: 'gateway:datetime' }]), stream);
    expect(message.content.map((block) => block.type)).toEqual(['server_tool_use', 'datetime_tool_result', 'text']);
    expect(message.stop_reason).toBe('refusal');
    expect(message.stop_details).toEqual(REFUSAL);
  });

  it('the container the last step names', async () => {
    setup.alpha.enqueue(
      anthropicStep({ calls: [{ name: 'datetime', input: {} }], usage: { input: 20, output: 8 }, container: CONTAINER }),
      anthropicStep({ text: 'Done.', usage: { input: 60, output: 9 }, container: CONTAINER }),
    );
    const { message } = await runLoop(setup.gateway, loopBody('test/claude', [{ type: 'gateway:datetime' }]), stream);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.container).toMatchObject(CONTAINER);
  });
});
