/**
 * Over HTTP: a client that disconnects while a gateway tool runs aborts the loop and the running call (the
 * slow page the tool fetches sees its request closed, and the model is not called again); the request's time
 * budget (SWITCHBOARD_REQUEST_TIMEOUT_MS) covers the whole loop, tools included, and when it runs out the error
 * (a 504, or the in-band `error` event of a stream already started) names the step and what was running: the
 * gateway tool, or the model on its provider; a step that fails on every provider after the stream has started
 * ends it with an in-band `error` event.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { anthropicStep, reply } from '#test/helpers/fake-upstreams/index.ts';
import type { Route } from '#test/helpers/fake-tool-servers/fake-web-server.ts';
import { checkComponentSchema } from '#test/helpers/spec-validator.ts';
import { errorMessage, postMessage, streamMessage } from '#test/integration/routing/routing-support.ts';
import { askingToRead, loopBody, useLoopGateway } from './loop-support.ts';

/** A page that never answers; each request it receives, with when its connection closed. */
function slowPage(): { route: Route; arrived(): Promise<{ closed: Promise<number> }> } {
  const waiting: ((held: { closed: Promise<number> }) => void)[] = [];
  return {
    route: (req: IncomingMessage) => {
      const closed = new Promise<number>((resolve) => req.socket.once('close', () => resolve(performance.now())));
      waiting.shift()?.({ closed });
    },
    arrived: () => new Promise((resolve) => waiting.push(resolve)),
  };
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, new Promise<T>((_resolve, reject) => setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms))]);
}

const ALPHA = { provider: { order: ['alpha', 'beta'] } };

describe('a client that disconnects', () => {
  const page = slowPage();
  const setup = useLoopGateway({ webRoutes: { '/slow': page.route } });

  it.each([false, true])('aborts the running tool call and the loop (stream: %s)', async (stream) => {
    setup.alpha.enqueue(
      anthropicStep({ calls: [{ name: 'web_fetch', input: { url: `${setup.web.origin}/slow` } }], usage: { input: 10, output: 5 } }),
      anthropicStep({ text: 'never asked for', usage: { input: 10, output: 5 } }),
    );
    const arrived = page.arrived();
    const client = new AbortController();
    const response = fetch(`${setup.gateway.baseUrl}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${setup.gateway.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify(loopBody('test/claude', [{ type: 'gateway:web_fetch' }], { ...ALPHA, ...askingToRead(`${setup.web.origin}/slow`), stream })),
      signal: client.signal,
    }).then(async (answer) => {
      // Read the stream as it comes, so the client is still connected while the tool runs.
      for await (const _chunk of answer.body ?? []) void _chunk;
    });
    const held = await within(arrived, 5_000, 'the tool reaching the slow page');
    const abortedAt = performance.now();
    client.abort();
    await response.catch(() => undefined);
    const closedAt = await within(held.closed, 3_000, 'the slow page seeing its request closed');
    expect(closedAt - abortedAt).toBeLessThan(3_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(setup.alpha.requests).toHaveLength(1);
    expect(setup.alpha.pendingReplies()).toBe(1);
  });
});

describe('the request time budget', () => {
  const page = slowPage();
  const setup = useLoopGateway({ webRoutes: { '/slow': page.route }, env: { SWITCHBOARD_REQUEST_TIMEOUT_MS: '1500' } });

  it('covers the tools: a loop outliving it ends with a 504 naming the step and the tool, the tool call aborted', async () => {
    setup.alpha.enqueue(anthropicStep({ calls: [{ name: 'web_fetch', input: { url: `${setup.web.origin}/slow` } }], usage: { input: 10, output: 5 } }));
    const arrived = page.arrived();
    const started = performance.now();
    const call = await postMessage(setup.gateway, loopBody('test/claude', [{ type: 'gateway:web_fetch' }], { ...ALPHA, ...askingToRead(`${setup.web.origin}/slow`) }));
    expect(call.status, JSON.stringify(call.body)).toBe(504);
    expect(checkComponentSchema('MessagesErrorBody', call.body).errors).toEqual([]);
    expect(call.body).toMatchObject({ type: 'error', error: { type: 'timeout_error', code: 504 } });
    expect(errorMessage(call)).toBe("The request exceeded its time budget of 1500 ms during the tool loop's step 1, while the gateway tool web_fetch ran");
    expect(performance.now() - started).toBeLessThan(4_000);
    const held = await arrived;
    await within(held.closed, 2_000, 'the slow page seeing its request closed');
    expect(setup.alpha.requests).toHaveLength(1);
  });

  it('fired during a later step\'s model call: a 504 naming the step and the model', async () => {
    setup.alpha.enqueue(anthropicStep({ calls: [{ name: 'datetime', input: {} }], usage: { input: 10, output: 5 } }), anthropicStep({ text: 'late', usage: { input: 10, output: 5 } }, { delayMs: 5_000 }));
    const call = await postMessage(setup.gateway, loopBody('test/claude', [{ type: 'gateway:datetime' }], ALPHA));
    expect(call.status, JSON.stringify(call.body)).toBe(504);
    expect(errorMessage(call)).toBe("The request exceeded its time budget of 1500 ms during the tool loop's step 2, while test/claude on Alpha Cloud was answering");
    // The budget is spent: the fallback provider is not tried.
    expect(setup.beta.requests).toHaveLength(0);
  });

  it.each([
    ['the tools', () => anthropicStep({ calls: [{ name: 'web_fetch', input: { url: `${setup.web.origin}/slow` } }], usage: { input: 10, output: 5 } }), null, "step 1, while the gateway tool web_fetch ran"],
    ['a later step that has not started', () => anthropicStep({ calls: [{ name: 'datetime', input: {} }], usage: { input: 10, output: 5 } }), { delayMs: 5_000 }, 'step 2, while test/claude on Alpha Cloud was answering'],
    ['a later step\'s stream', () => anthropicStep({ calls: [{ name: 'datetime', input: {} }], usage: { input: 10, output: 5 } }), { chunkDelayMs: 400 }, 'step 2, while test/claude on Alpha Cloud was answering'],
  ] as const)('fired in a stream during %s: an in-band error event saying so', async (_case, first, second, what) => {
    setup.alpha.enqueue(first());
    if (second) setup.alpha.enqueue(anthropicStep({ text: 'one two three four five six seven eight', usage: { input: 10, output: 5 } }, second));
    const call = await streamMessage(setup.gateway, loopBody('test/claude', [{ type: 'gateway:datetime' }, { type: 'gateway:web_fetch' }], { ...ALPHA, ...askingToRead(`${setup.web.origin}/slow`) }));
    expect(call.status).toBe(200);
    const names = call.events.map((event) => event.event);
    expect(names[0]).toBe('message_start');
    expect(names.at(-1)).toBe('error');
    expect(names).not.toContain('message_stop');
    const error = JSON.parse(call.events.at(-1)?.data ?? '{}') as unknown;
    expect(checkComponentSchema('ErrorEvent', error).errors).toEqual([]);
    expect(error).toEqual({ type: 'error', error: { type: 'timeout_error', message: `The request exceeded its time budget of 1500 ms during the tool loop's ${what}` } });
  });

  it('a step that fails on every provider after the stream started: an in-band error event', async () => {
    setup.alpha.enqueue(anthropicStep({ calls: [{ name: 'datetime', input: {} }], usage: { input: 10, output: 5 } }), reply.error(529));
    setup.beta.enqueue(reply.error(529));
    const call = await streamMessage(setup.gateway, loopBody('test/claude', [{ type: 'gateway:datetime' }], ALPHA));
    expect(call.status).toBe(200);
    const names = call.events.map((event) => event.event);
    expect(names[0]).toBe('message_start');
    expect(names).toContain('content_block_start');
    expect(names.at(-1)).toBe('error');
    expect(names).not.toContain('message_stop');
    expect(JSON.parse(call.events.at(-1)?.data ?? '{}')).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
  });
});
