import { randomUUID } from 'node:crypto';
import { encodeEventStreamMessage } from './aws-event-stream.ts';
import { startFakeUpstream, type FakeUpstream, type FakeUpstreamOptions } from './fake-server.ts';
import type { VendorError, WireFormat } from './wire-format.ts';

/** Options of the fake Bedrock Converse API. */
export interface FakeBedrockOptions extends FakeUpstreamOptions {
  /**
   * Add Bedrock's random-length `p` padding field to each event payload, as the live service does to hide
   * payload sizes (default true); consumers must ignore it.
   */
  padding?: boolean;
}

/**
 * Bedrock's exception name per HTTP status; sent as `x-amzn-ErrorType` and, in streams, `:exception-type`.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_Errors
 */
const exceptions: Record<number, { name: string; message: string }> = {
  400: { name: 'ValidationException', message: 'The provided request is not valid' },
  403: { name: 'AccessDeniedException', message: "You don't have access to the model with the specified model ID." },
  404: { name: 'ResourceNotFoundException', message: 'The provided model identifier is invalid.' },
  408: { name: 'ModelTimeoutException', message: 'Model has timed out in processing the request.' },
  424: { name: 'ModelErrorException', message: 'The model returned an error.' },
  429: { name: 'ThrottlingException', message: 'Too many requests, please wait before trying again.' },
  500: { name: 'InternalServerException', message: 'The system encountered an unexpected error during processing.' },
  503: { name: 'ServiceUnavailableException', message: 'Bedrock is unable to process your request.' },
};

// Exceptions sharing a status with another, named by a reply's `code`.
const namedExceptions: Record<string, string> = {
  ServiceQuotaExceededException: 'Your request exceeds the service quota for your account. You can resubmit your request later.',
};

function exceptionFor(status: number, message?: string, name?: string): { name: string; message: string } {
  if (name !== undefined) return { name, message: message ?? namedExceptions[name] ?? 'Error' };
  const known = exceptions[status] ?? { name: status >= 500 ? 'InternalServerException' : 'ValidationException', message: 'Error' };
  return { name: known.name, message: message ?? known.message };
}

const paddingAlphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Splits a recording line `{ "<eventType>": payload }` into its event type and payload. */
export function splitBedrockEvent(line: unknown): { eventType: string; payload: Record<string, unknown> } {
  if (typeof line !== 'object' || line === null) throw new TypeError('Bedrock event must be an object');
  const entries = Object.entries(line);
  const [entry] = entries;
  if (entries.length !== 1 || entry === undefined) {
    throw new TypeError(`Bedrock event must have exactly one key (its event type): ${JSON.stringify(line)}`);
  }
  const [eventType, payload] = entry;
  if (typeof payload !== 'object' || payload === null) throw new TypeError(`${eventType} payload must be an object`);
  return { eventType, payload: { ...payload } };
}

/**
 * Bedrock's ValidationException for a tool whose name Converse refuses (`toolSpec.name` takes 1 to 64 of
 * `[a-zA-Z0-9_-]`), in AWS's validation wording; undefined when every name is accepted.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html
 */
function refusedToolName(body: unknown): string | undefined {
  const tools = (body as { toolConfig?: { tools?: unknown } } | null)?.toolConfig?.tools;
  if (!Array.isArray(tools)) return undefined;
  for (const [index, tool] of tools.entries()) {
    const name = (tool as { toolSpec?: { name?: unknown } }).toolSpec?.name;
    if (typeof name !== 'string') continue;
    const at = `Value '${name}' at 'toolConfig.tools.${index + 1}.member.toolSpec.name' failed to satisfy constraint`;
    if (name.length > 64) return `1 validation error detected: ${at}: Member must have length less than or equal to 64`;
    if (!/^[a-zA-Z0-9_-]+$/.test(name)) return `1 validation error detected: ${at}: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+`;
  }
  return undefined;
}

/**
 * The Bedrock Converse wire format: JSON for `/converse`, AWS binary event-stream for `/converse-stream`.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
 */
export function bedrockConverseFormat(options: { padding?: boolean } = {}): WireFormat {
  const padding = options.padding ?? true;
  return {
    fixtureVendor: 'amazon-bedrock',
    route(method, path) {
      const match = /^\/model\/([^/]+)\/(converse|converse-stream)$/.exec(path);
      if (method !== 'POST' || match === null) return undefined;
      const [, modelId = '', operation = ''] = match;
      return { operation, params: { modelId: decodeURIComponent(modelId) }, streamingPath: operation === 'converse-stream' };
    },
    answerDirectly(request) {
      const refused = refusedToolName(request.body);
      if (refused === undefined) return undefined;
      const { body, headers } = this.errorFor(400, refused);
      return { status: 400, body, headers };
    },
    streamContentType: 'application/vnd.amazon.eventstream',
    encodeEvent(line, index) {
      const { eventType, payload } = splitBedrockEvent(line);
      if (padding) payload.p = paddingAlphabet.slice(0, 1 + ((index * 7) % paddingAlphabet.length));
      const headers = { ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' };
      return encodeEventStreamMessage(headers, Buffer.from(JSON.stringify(payload), 'utf8'));
    },
    errorFor(status, message, code): VendorError {
      const exception = exceptionFor(status, message, code);
      return {
        body: { message: exception.message },
        headers: {
          'x-amzn-errortype': `${exception.name}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
          'x-amzn-requestid': randomUUID(),
        },
      };
    },
    streamErrorFor(status, message) {
      const exception = exceptionFor(status, message);
      // In streams the exception name is lower camel case, e.g. `throttlingException`.
      const exceptionType = `${exception.name.charAt(0).toLowerCase()}${exception.name.slice(1)}`;
      const headers = { ':exception-type': exceptionType, ':content-type': 'application/json', ':message-type': 'exception' };
      return encodeEventStreamMessage(headers, Buffer.from(JSON.stringify({ message: exception.message }), 'utf8'));
    },
  };
}

/**
 * Starts a fake Bedrock runtime: `POST /model/{modelId}/converse` and `/converse-stream`. `baseURL` is the
 * origin, as `createAmazonBedrock({ baseURL })` expects.
 */
export function startFakeBedrock(options: FakeBedrockOptions = {}): Promise<FakeUpstream> {
  return startFakeUpstream(bedrockConverseFormat(options), options);
}
