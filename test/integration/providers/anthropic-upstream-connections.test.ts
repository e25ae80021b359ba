/**
 * The gateway's connections to an Anthropic-format upstream, seen from the upstream: answers read to their end
 * (JSON messages, event streams, error bodies) leave their connection in the pool for the next call; a stream
 * far larger than what the gateway buffers reaches the client whole, in order; and a client that reads slowly
 * holds the upstream back instead of the gateway buffering the upstream's whole answer.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicCatalogYaml, postMessages } from '#test/integration/providers/anthropic-passthrough-support.ts';

const MODEL = 'connections/claude';
const MESSAGE = {
  id: 'msg_connections',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [{ type: 'text', text: 'Hello' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 5, output_tokens: 2 },
};

const frame = (name: string, data: unknown) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;

/** An event stream with `deltas` text deltas of `size` characters each. */
function eventStream(deltas: number, size: number): string[] {
  const text = 'x'.repeat(size);
  return [
    frame('message_start', { type: 'message_start', message: { ...MESSAGE, content: [], stop_reason: null, usage: { input_tokens: 5, output_tokens: 1 } } }),
    frame('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    ...Array.from({ length: deltas }, () => frame('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
    frame('content_block_stop', { type: 'content_block_stop', index: 0 }),
    frame('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: deltas } }),
    frame('message_stop', { type: 'message_stop' }),
  ];
}

let upstream: Server;
let gateway: TestGateway;
const sockets = new Set<Socket>();
let answer: (body: { stream?: boolean; max_tokens?: number }, res: ServerResponse) => void;

beforeAll(async () => {
  upstream = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => answer(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { stream?: boolean }, res));
  });
  upstream.on('connection', (socket: Socket) => sockets.add(socket));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  gateway = await startTestGateway({ catalogYaml: anthropicCatalogYaml(MODEL, url, 'sk-ant-connections-shared-0001') });
});

afterAll(async () => {
  await gateway?.close();
  upstream?.closeAllConnections();
  await new Promise((resolve) => upstream?.close(resolve));
});

function post(stream: boolean, maxTokens = 64): Promise<Response> {
  return postMessages(gateway, MODEL, { stream, maxTokens });
}

describe('connections to an Anthropic-format upstream', () => {
  it('keeps one connection for JSON answers, event streams and error bodies read to their end', async () => {
    answer = (body, res) => {
      if (body.max_tokens === 1) return void res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens is too small' } }));
      if (!body.stream) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(MESSAGE));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const event of eventStream(3, 5)) res.write(event);
      res.end();
    };
    expect((await post(false)).status).toBe(200);
    sockets.clear();
    for (let round = 0; round < 4; round += 1) {
      const json = await post(false);
      expect(((await json.json()) as { content: unknown }).content).toEqual(MESSAGE.content);
      const streamed = await post(true);
      expect(await streamed.text()).toContain('event: message_stop');
      const refused = await post(false, 1);
      expect(refused.status).toBe(400);
      await refused.arrayBuffer();
    }
    // The pool may open a second connection while the first is being released, never one per call.
    expect(sockets.size).toBeLessThanOrEqual(2);
    expect([...sockets].filter((socket) => socket.destroyed)).toEqual([]);
  });

  it('passes a stream far larger than the upstream body buffer whole and in order', async () => {
    const deltas = 400;
    const events = eventStream(deltas, 2_000);
    answer = (_body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // One write: the gateway receives the ~800 KB in as few packets as the socket allows.
      res.end(events.join(''));
    };
    const response = await post(true);
    const text = await response.text();
    expect(text.match(/event: content_block_delta/g)).toHaveLength(deltas);
    for (const event of events.slice(2, -3)) expect(text.includes(event)).toBe(true);
    expect(text.trimEnd().endsWith('data: {"type":"message_stop"}')).toBe(true);
  });

  it('holds the upstream back while the client does not read, and passes everything once it does', async () => {
    const events = eventStream(8_000, 4_000);
    let finished = false;
    answer = (_body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let next = 0;
      const pump = () => {
        while (next < events.length) if (!res.write(events[next++])) return void res.once('drain', pump);
        res.end(() => (finished = true));
      };
      pump();
    };
    const body = JSON.stringify({ model: MODEL, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hi' }] });
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const url = new URL(`${gateway.baseUrl}/messages`);
      httpRequest(url, { method: 'POST', headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' } }, resolve).on('error', reject).end(body);
    });
    expect(response.statusCode).toBe(200);
    response.pause();
    await sleep(500);
    // ~32 MB: without back-pressure the gateway would have taken it all by now; socket buffers hold a few MB.
    expect(finished).toBe(false);
    let text = '';
    response.setEncoding('utf8');
    for await (const chunk of response) text += chunk as string;
    expect(finished).toBe(true);
    expect(text.match(/event: content_block_delta/g)).toHaveLength(8_000);
    expect(text.trimEnd().endsWith('data: {"type":"message_stop"}')).toBe(true);
  });
});
