import { crc32 } from 'node:zlib';

/**
 * Header value type 7 (string) of the AWS event-stream encoding; the only type Bedrock's stream uses.
 * @see https://docs.aws.amazon.com/transcribe/latest/dg/event-stream.html
 */
const stringValueType = 7;

function encodeHeaders(headers: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const nameBytes = Buffer.from(name, 'utf8');
    const valueBytes = Buffer.from(value, 'utf8');
    const header = Buffer.alloc(1 + nameBytes.length + 1 + 2 + valueBytes.length);
    let offset = header.writeUInt8(nameBytes.length, 0);
    offset += nameBytes.copy(header, offset);
    offset = header.writeUInt8(stringValueType, offset);
    offset = header.writeUInt16BE(valueBytes.length, offset);
    valueBytes.copy(header, offset);
    parts.push(header);
  }
  return Buffer.concat(parts);
}

/**
 * Encodes one AWS event-stream message: a 12-byte prelude (total length, headers length, prelude CRC32),
 * the headers, the payload and a CRC32 of everything before it. All integers are big-endian.
 */
export function encodeEventStreamMessage(headers: Record<string, string>, payload: Uint8Array): Buffer {
  const headerBytes = encodeHeaders(headers);
  const totalLength = 12 + headerBytes.length + payload.length + 4;
  const message = Buffer.alloc(totalLength);
  message.writeUInt32BE(totalLength, 0);
  message.writeUInt32BE(headerBytes.length, 4);
  message.writeUInt32BE(crc32(message.subarray(0, 8)), 8);
  headerBytes.copy(message, 12);
  Buffer.from(payload).copy(message, 12 + headerBytes.length);
  message.writeUInt32BE(crc32(message.subarray(0, totalLength - 4)), totalLength - 4);
  return message;
}

/** A decoded event-stream message, for tests of the encoder and of consumers. */
export interface EventStreamMessage {
  headers: Record<string, string>;
  payload: Buffer;
}

/**
 * Decodes every complete message in a buffer, checking both CRCs; throws on a corrupt or partial message.
 * Only string headers are supported, as only those are produced here.
 */
export function decodeEventStreamMessages(bytes: Uint8Array): EventStreamMessage[] {
  const buffer = Buffer.from(bytes);
  const messages: EventStreamMessage[] = [];
  for (let start = 0; start < buffer.length; ) {
    if (buffer.length - start < 16) throw new Error('partial event-stream message');
    const totalLength = buffer.readUInt32BE(start);
    const headersLength = buffer.readUInt32BE(start + 4);
    const message = buffer.subarray(start, start + totalLength);
    if (message.length < totalLength) throw new Error('partial event-stream message');
    if (crc32(message.subarray(0, 8)) !== message.readUInt32BE(8)) throw new Error('prelude CRC mismatch');
    if (crc32(message.subarray(0, totalLength - 4)) !== message.readUInt32BE(totalLength - 4)) {
      throw new Error('message CRC mismatch');
    }
    const headers: Record<string, string> = {};
    for (let offset = 12; offset < 12 + headersLength; ) {
      const nameLength = message.readUInt8(offset);
      const name = message.toString('utf8', offset + 1, offset + 1 + nameLength);
      offset += 1 + nameLength;
      if (message.readUInt8(offset) !== stringValueType) throw new Error(`header ${name} is not a string`);
      const valueLength = message.readUInt16BE(offset + 1);
      headers[name] = message.toString('utf8', offset + 3, offset + 3 + valueLength);
      offset += 3 + valueLength;
    }
    messages.push({ headers, payload: message.subarray(12 + headersLength, totalLength - 4) });
    start += totalLength;
  }
  return messages;
}
