import { describe, expect, it } from 'vitest';
import { UpstreamError } from '#src/errors.ts';
import { retryAfterSeconds, upstreamErrorFromResponse, upstreamErrorFromThrown } from '#src/providers/map-upstream-failure.ts';
import { kindForStatus } from '#src/error-vocabulary.ts';

describe('kindForStatus', () => {
  it.each([
    [400, 'invalid_request'],
    [401, 'authentication'],
    [402, 'authentication'],
    [403, 'authentication'],
    [404, 'not_found'],
    [408, 'timeout'],
    [413, 'request_too_large'],
    [424, 'server_error'],
    [422, 'invalid_request'],
    [429, 'rate_limited'],
    [500, 'server_error'],
    [502, 'server_error'],
    [503, 'overloaded'],
    [504, 'timeout'],
    [520, 'server_error'],
    [529, 'overloaded'],
    [498, 'overloaded'],
  ])('maps %i to %s', (status, kind) => {
    expect(kindForStatus(status)).toBe(kind);
  });
});

describe('upstreamErrorFromResponse with a vendor error class or code', () => {
  it.each([
    [400, 'ServiceQuotaExceededException', 'rate_limited'],
    [498, 'capacity_exceeded', 'overloaded'],
    [400, 'ValidationException', 'invalid_request'],
    [429, 'rate_limit_exceeded', 'rate_limited'],
    [400, undefined, 'invalid_request'],
  ])('a %i with code %s is %s', (status, errorCode, kind) => {
    expect(upstreamErrorFromResponse({ provider: 'p', status, body: '{}', errorCode }).kind).toBe(kind);
  });
});

describe('upstreamErrorFromResponse', () => {
  const body = JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'shard 12 of cluster eu-7 crashed' } });

  it.each([
    [429, 429, true, true],
    [500, 502, true, true],
    [503, 529, true, true],
    [529, 529, true, true],
    [504, 504, true, true],
    [401, 502, false, true],
    [404, 502, false, true],
    [400, 400, false, false],
    // Over one vendor's size limit: another vendor's may be larger.
    [413, 413, false, true],
  ])('an upstream %i becomes gateway status %i (retryable %s, fallback %s)', (upstreamStatus, status, retryable, fallbackEligible) => {
    const error = upstreamErrorFromResponse({ provider: 'anthropic', status: upstreamStatus, body });
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ provider: 'anthropic', upstreamStatus, status, retryable, fallbackEligible, rawBody: body });
  });

  it.each([
    ['Your credit balance is too low to access the Anthropic API.'],
    ['You exceeded your current quota, please check your plan and billing details.'],
  ])('an exhausted account (%s) lets the next key or provider answer', (vendorMessage) => {
    const error = upstreamErrorFromResponse({ provider: 'anthropic', status: 400, body, vendorMessage });
    expect(error).toMatchObject({ kind: 'authentication', retryable: false, fallbackEligible: true });
    expect(error.publicMessage).not.toContain('credit');
  });

  it("reads Gemini's RESOURCE_EXHAUSTED as a rate limit, its retryDelay as the wait, though its words are an empty account's", () => {
    const gemini = JSON.stringify({
      error: {
        code: 429,
        message: 'You exceeded your current quota, please check your plan and billing details.',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '34.4s' }],
      },
    });
    const error = upstreamErrorFromResponse({ provider: 'google', status: 429, body: gemini, vendorMessage: 'You exceeded your current quota, please check your plan and billing details.' });
    expect(error).toMatchObject({ kind: 'rate_limited', status: 429, headers: { 'retry-after': '35' } });
  });

  it('keeps the body for logs only, never in the public message', () => {
    const error = upstreamErrorFromResponse({ provider: 'anthropic', status: 500, body, vendorMessage: 'shard 12 of cluster eu-7 crashed' });
    expect(error.publicMessage).toBe('Upstream anthropic failed: server error');
  });

  it('bounds the kept body', () => {
    const error = upstreamErrorFromResponse({ provider: 'anthropic', status: 500, body: 'x'.repeat(10_000) });
    expect(error.rawBody).toHaveLength(4096);
  });

  it('shows the vendor message of an invalid request, redacted and bounded', () => {
    const error = upstreamErrorFromResponse({
      provider: 'groq',
      status: 400,
      body,
      vendorMessage: `key sk-ant-api03-abcdefghijklmnop is fine but ${'y'.repeat(600)}`,
    });
    expect(error.publicMessage.startsWith('Invalid request parameters: groq rejected the request: key [REDACTED] is fine but y')).toBe(true);
    expect(error.publicMessage).not.toContain('sk-ant');
    expect(error.publicMessage.length).toBeLessThan(600);
  });

  it('removes the call\'s own key, whatever it looks like, from the vendor message and the kept body', () => {
    const key = 'gsk_7Qx9customerKeyWithoutAKnownPrefix';
    const echoed = `Invalid API key: ${key}`;
    const error = upstreamErrorFromResponse({ provider: 'groq', status: 400, body: JSON.stringify({ error: { message: echoed } }), vendorMessage: echoed, secrets: [key] });
    expect(error.publicMessage).toBe('Invalid request parameters: groq rejected the request: Invalid API key: [REDACTED]');
    expect(error.rawBody).not.toContain(key);
  });

  it('says only that the vendor rejected the request when there is no vendor message', () => {
    expect(upstreamErrorFromResponse({ provider: 'groq', status: 422, body: '<html>' }).publicMessage).toBe('Invalid request parameters: groq rejected the request');
  });
});

describe('retryAfterSeconds', () => {
  const NOW = Date.parse('2026-11-27T08:00:00Z');
  it.each<[string | string[] | undefined, number | undefined]>([
    ['17', 17],
    [' 3 ', 3],
    ['0', 0],
    ['1.2', 2],
    [['5', '9'], 5],
    ['Fri, 27 Nov 2026 08:00:30 GMT', 30],
    ['Fri, 27 Nov 2026 07:59:00 GMT', 0],
    ['soon', undefined],
    ['-4', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('reads %j as %s seconds', (value, seconds) => {
    expect(retryAfterSeconds(value, NOW)).toBe(seconds);
  });

  it("is kept only where waiting helps: a rate limit or an overload, not a request's own mistake", () => {
    const limited = upstreamErrorFromResponse({ provider: 'anthropic', status: 429, body: '', retryAfter: '12' });
    const overloaded = upstreamErrorFromResponse({ provider: 'anthropic', status: 529, body: '', retryAfter: '3' });
    const invalid = upstreamErrorFromResponse({ provider: 'anthropic', status: 400, body: '', retryAfter: '12' });
    expect(limited.headers).toEqual({ 'retry-after': '12' });
    expect(overloaded.headers).toEqual({ 'retry-after': '3' });
    expect(invalid.headers).toBeUndefined();
  });
});

describe('upstreamErrorFromThrown', () => {
  const withCode = (code: string, message = code) => Object.assign(new Error(message), { code });

  it.each([
    ['a reset', withCode('ECONNRESET'), 'connection'],
    ['a refused connection', withCode('ECONNREFUSED'), 'connection'],
    ['an undici socket error', withCode('UND_ERR_SOCKET'), 'connection'],
    ['a connect timeout', withCode('UND_ERR_CONNECT_TIMEOUT'), 'timeout'],
    ['a headers timeout', withCode('UND_ERR_HEADERS_TIMEOUT'), 'timeout'],
    ['a body timeout', withCode('UND_ERR_BODY_TIMEOUT'), 'timeout'],
    ['a code on the cause', new TypeError('fetch failed', { cause: withCode('ECONNRESET') }), 'connection'],
    ['a timeout signal', AbortSignal.timeout(0).reason ?? new DOMException('t', 'TimeoutError'), 'timeout'],
    ['a DOM TimeoutError', new DOMException('The operation timed out.', 'TimeoutError'), 'timeout'],
    ['an AbortError', new DOMException('This operation was aborted', 'AbortError'), 'timeout'],
    ['an undici abort', withCode('UND_ERR_ABORTED'), 'timeout'],
    ['bad JSON', new SyntaxError('Unexpected token <'), 'malformed_response'],
    ['anything else', new Error('boom'), 'connection'],
  ])('maps %s to %s', (_name, error, kind) => {
    const mapped = upstreamErrorFromThrown('anthropic', error);
    expect(mapped).toMatchObject({ provider: 'anthropic', kind, retryable: true, fallbackEligible: true });
    expect(mapped.cause).toBe(error);
    expect(mapped.upstreamStatus).toBeUndefined();
  });

  it('returns an UpstreamError as it is', () => {
    const original = new UpstreamError({ provider: 'anthropic', kind: 'overloaded' });
    expect(upstreamErrorFromThrown('other', original)).toBe(original);
  });

  it('never shows the thrown message to the client', () => {
    const mapped = upstreamErrorFromThrown('anthropic', withCode('ECONNREFUSED', 'connect ECONNREFUSED 10.1.2.3:443'));
    expect(mapped.publicMessage).toBe('Upstream anthropic failed: connection');
  });
});
