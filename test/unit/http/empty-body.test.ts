import { describe, expect, it } from 'vitest';
import type { Request, Response } from 'express';
import { BadRequestError } from '#src/errors.ts';
import { EMPTY_BODY_REASON, rejectEmptyBody, verifyBodyLength } from '#src/http/empty-body.ts';

function outcome(options: { bytes?: number[]; body?: unknown; contentType?: string; required?: boolean }): unknown {
  const req = {
    headers: options.contentType === undefined ? {} : { 'content-type': options.contentType },
    body: options.body,
    openapi: { schema: { requestBody: options.required === undefined ? undefined : { required: options.required } } },
  } as unknown as Request;
  if (options.bytes) verifyBodyLength(req, undefined, Buffer.from(options.bytes));
  let passed: unknown = 'not called';
  rejectEmptyBody(req, {} as Response, (error?: unknown) => {
    passed = error;
  });
  return passed instanceof BadRequestError ? passed.message : passed;
}

const REFUSED = `Invalid request parameters: ${EMPTY_BODY_REASON}`;

describe('rejectEmptyBody', () => {
  it.each([
    ['no bytes, body required', { bytes: [], body: {}, contentType: 'application/json', required: true }, REFUSED],
    ['a byte-order mark alone', { bytes: [0xef, 0xbb, 0xbf], body: {}, contentType: 'application/json', required: true }, REFUSED],
    ['no body at all, sent as JSON', { contentType: 'application/json; charset=utf-8', required: true }, REFUSED],
    ['{} read from two bytes', { bytes: [0x7b, 0x7d], body: {}, contentType: 'application/json', required: true }, undefined],
    ['no bytes where no body is required', { bytes: [], body: {}, contentType: 'application/json', required: false }, undefined],
    ['no bytes on an operation without a body', { bytes: [], body: {}, contentType: 'application/json' }, undefined],
    ['no body of another type (the 415 names it)', { contentType: 'text/plain', required: true }, undefined],
    ['no body and no type (the 415 says none)', { required: true }, undefined],
  ] as const)('%s', (_case, options, expected) => {
    expect(outcome({ ...options, bytes: 'bytes' in options ? [...options.bytes] : undefined })).toBe(expected);
  });
});
