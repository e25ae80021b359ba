import { describe, expect, it } from 'vitest';
import {
  bedrockConverseFormat,
  decodeEventStreamMessages,
  encodeEventStreamMessage,
  readChunks,
} from '#test/helpers/fake-upstreams/index.ts';

describe('AWS event-stream encoding', () => {
  it('lays out prelude, headers, payload and CRCs so that decoding gives them back', () => {
    const payload = Buffer.from('{"role":"assistant"}');
    const message = encodeEventStreamMessage({ ':event-type': 'messageStart', ':message-type': 'event' }, payload);

    expect(message.readUInt32BE(0)).toBe(message.length);
    // Two headers: (1 + 11 + 1 + 2 + 12) + (1 + 13 + 1 + 2 + 5) bytes.
    expect(message.readUInt32BE(4)).toBe(27 + 22);
    expect(decodeEventStreamMessages(message)).toEqual([
      { headers: { ':event-type': 'messageStart', ':message-type': 'event' }, payload },
    ]);
  });

  it('detects a corrupted byte through the message CRC', () => {
    const message = encodeEventStreamMessage({ ':message-type': 'event' }, Buffer.from('{}'));
    const offset = message.length - 6;
    message.writeUInt8(message.readUInt8(offset) ^ 0xff, offset);
    expect(() => decodeEventStreamMessages(message)).toThrow('message CRC mismatch');
  });

  it('turns each recorded Bedrock line into one event message with padding', () => {
    const format = bedrockConverseFormat();
    const lines = readChunks('amazon-bedrock', 'amazon-bedrock-tool-call.1');
    const messages = decodeEventStreamMessages(Buffer.concat(lines.map((line, index) => format.encodeEvent(line, index))));

    expect(messages.map((message) => message.headers[':event-type'])).toEqual([
      'contentBlockStart',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockStop',
      'metadata',
      'messageStop',
    ]);
    expect(messages.every((message) => message.headers[':content-type'] === 'application/json')).toBe(true);
    const first = JSON.parse(messages[0]?.payload.toString() ?? '{}') as Record<string, unknown>;
    expect(first).toMatchObject({ contentBlockIndex: 0, start: { toolUse: { toolUseId: 'tool-use-id', name: 'test-tool' } } });
    expect(first.p).toEqual(expect.any(String));
  });

  it('encodes a stream exception with a lower-camel-case exception type', () => {
    const [exception] = decodeEventStreamMessages(bedrockConverseFormat().streamErrorFor?.(429) ?? Buffer.alloc(0));
    expect(exception?.headers).toEqual({
      ':exception-type': 'throttlingException',
      ':content-type': 'application/json',
      ':message-type': 'exception',
    });
  });
});
