/**
 * Which upstream answers are thread refusals answered as they are (`threadRejectionOf`), and which failures
 * carry a thread code to the client (`threadErrorCodeOf`).
 */
import { describe, expect, it } from 'vitest';
import { UnsupportedFeatureError } from '#src/errors.ts';
import { ThreadRejectedError, ThreadUnsupportedError, threadErrorCodeOf, threadRejectionOf } from '#src/thread-errors.ts';

function anthropicError(type: string, message: string, details?: unknown): string {
  return JSON.stringify({ type: 'error', error: { type, message, ...(details === undefined ? {} : { details }) }, request_id: 'req_011' });
}

describe('threadRejectionOf', () => {
  it.each([
    [404, 'thread_not_found'],
    [400, 'thread_already_continued'],
    [400, 'thread_continue_in_flight'],
    [400, 'thread_fingerprint_mismatch'],
    [400, 'thread_unsupported_request'],
  ])('a %i with %s is answered with its status, message and code', (status, code) => {
    const rejection = threadRejectionOf('anthropic', status, anthropicError('invalid_request_error', `Refused: ${code}`, { error_code: code }));
    expect(rejection).toBeInstanceOf(ThreadRejectedError);
    expect(rejection).toMatchObject({ status, errorCode: code, publicMessage: `Refused: ${code}`, provider: 'anthropic' });
  });

  it.each([
    ['another code', 400, anthropicError('invalid_request_error', 'Tool name taken', { error_code: 'tool_name_conflict' })],
    ['no details', 404, anthropicError('not_found_error', 'model: claude-nope')],
    ['a 5xx', 500, anthropicError('api_error', 'Internal', { error_code: 'thread_not_found' })],
    ['a body that is not JSON', 404, '<html>Not Found</html>'],
    ['a JSON null', 404, 'null'],
  ])('%s is not a thread refusal', (_name, status, body) => {
    expect(threadRejectionOf('anthropic', status, body)).toBeUndefined();
  });

  it('removes the provider key from the message and names the code when there is no message', () => {
    const echoed = threadRejectionOf('anthropic', 404, anthropicError('not_found_error', 'No thread for key sk-ant-echo-123', { error_code: 'thread_not_found' }), ['sk-ant-echo-123']);
    expect(echoed?.publicMessage).not.toContain('sk-ant-echo-123');
    const silent = threadRejectionOf('anthropic', 404, JSON.stringify({ error: { details: { error_code: 'thread_not_found' } } }));
    expect(silent?.publicMessage).toBe('anthropic refused the thread turn: thread_not_found');
  });
});

describe('threadErrorCodeOf', () => {
  it('is the code of a thread failure and nothing for any other', () => {
    expect(threadErrorCodeOf(new ThreadUnsupportedError('field thread is not supported by Google Gemini'))).toBe('thread_unsupported_request');
    expect(threadErrorCodeOf(new ThreadRejectedError({ provider: 'anthropic', status: 404, errorCode: 'thread_not_found', message: 'gone' }))).toBe('thread_not_found');
    expect(threadErrorCodeOf(new UnsupportedFeatureError('field container is not supported by Google Gemini'))).toBeUndefined();
    expect(threadErrorCodeOf(new Error('thread_not_found'))).toBeUndefined();
  });
});
