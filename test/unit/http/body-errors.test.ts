import { describe, expect, it } from 'vitest';
import { fromBodyParserError, isBodyParserError, unsupportedMediaTypeMessage } from '#src/http/body-errors.ts';

const OPERATION = { schema: { requestBody: { content: { 'application/json': {} } } } };
const PREFIX = 'Unsupported Media Type: Content-Type must be application/json';

describe('unsupportedMediaTypeMessage', () => {
  it.each([
    ['text/plain', `${PREFIX}, got text/plain`],
    ['Text/Plain; charset=UTF-8', `${PREFIX}, got text/plain`],
    ['application/vnd.api+json', `${PREFIX}, got application/vnd.api+json`],
    [undefined, `${PREFIX}, but the request has none`],
    ['', `${PREFIX}, but the request has none`],
    ['sk-ant-api03-secret value', `${PREFIX}, got a value that is not a media type`],
    ['x'.repeat(200), `${PREFIX}, got a value that is not a media type`],
  ])('Content-Type %j', (contentType, expected) => {
    const headers = contentType === undefined ? {} : { 'content-type': contentType };
    expect(unsupportedMediaTypeMessage({ headers, openapi: OPERATION })).toBe(expected);
  });

  it("names the media types the operation's spec lists", () => {
    const openapi = { schema: { requestBody: { content: { 'application/json': {}, 'application/x-ndjson': {} } } } };
    expect(unsupportedMediaTypeMessage({ headers: {}, openapi })).toBe('Unsupported Media Type: Content-Type must be application/json or application/x-ndjson, but the request has none');
  });
});

describe('fromBodyParserError', () => {
  it.each([
    [{ type: 'entity.parse.failed', status: 400, expose: true }, 400, 'Invalid request parameters: the body is not valid JSON'],
    [{ type: 'entity.parse.failed', status: 400, expose: true, body: '{"model": ' }, 400, 'Invalid request parameters: the body is not valid JSON'],
    [{ type: 'entity.parse.failed', status: 400, expose: true, body: ' null ' }, 400, 'Invalid request parameters: the body must be a JSON object, got null'],
    [{ type: 'entity.parse.failed', status: 400, expose: true, body: '"text"' }, 400, 'Invalid request parameters: the body must be a JSON object, got a string'],
    [{ type: 'entity.parse.failed', status: 400, expose: true, body: '\uFEFF42' }, 400, 'Invalid request parameters: the body must be a JSON object, got a number'],
    [{ type: 'entity.parse.failed', status: 400, expose: true, body: 'false' }, 400, 'Invalid request parameters: the body must be a JSON object, got false'],
    [{ type: 'entity.parse.failed', status: 400, expose: true, body: '{} {}' }, 400, 'Invalid request parameters: the body is not valid JSON'],
    [{ type: 'entity.too.large', status: 413, expose: true }, 413, 'Request body too large'],
    [{ type: 'charset.unsupported', status: 415, expose: true, charset: 'koi8-r' }, 415, 'Unsupported Media Type: the body must be UTF-8, got charset koi8-r'],
    [{ type: 'encoding.unsupported', status: 415, expose: true, encoding: 'x-squash' }, 415, 'Unsupported Media Type: Content-Encoding x-squash is not supported'],
    [{ type: 'encoding.unsupported', status: 415, expose: true, encoding: 'a b\nc' }, 415, 'Unsupported Media Type: Content-Encoding unknown is not supported'],
    [{ type: 'request.size.invalid', status: 400, expose: true }, 400, 'Invalid request parameters: the body could not be read'],
    [{ status: 400, expose: true, errno: -3, code: 'Z_DATA_ERROR' }, 400, 'Invalid request parameters: the body is not valid for its Content-Encoding'],
  ])('%j', (error, status, message) => {
    expect(isBodyParserError(error)).toBe(true);
    expect(fromBodyParserError(error)).toEqual({ status, message });
  });

  it('leaves server-side stream failures to the 500 path', () => {
    expect(isBodyParserError({ type: 'stream.not.readable', status: 500, expose: false })).toBe(false);
  });
});
