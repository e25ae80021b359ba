import { describe, expect, it } from 'vitest';
import { clientErrorAnswer, serverOptions, type ServerLimits } from '#src/http/server-limits.ts';

const LIMITS: ServerLimits = { headersTimeoutMs: 20_000, bodyTimeoutMs: 120_000, keepAliveTimeoutMs: 65_000, maxHeaderCount: 100 };
const ID = 'gen_0mihx1r2kAbCdEfGhIjKlMnOp';

function parse(answer: string | undefined) {
  const [head, body] = (answer ?? '').split('\r\n\r\n');
  return { statusLine: head?.split('\r\n')[0], head, body: JSON.parse(body ?? 'null') };
}

describe('clientErrorAnswer', () => {
  it.each([
    ['ERR_HTTP_REQUEST_TIMEOUT', 'HTTP/1.1 408 Request Timeout', 408],
    ['HPE_HEADER_OVERFLOW', 'HTTP/1.1 431 Request Header Fields Too Large', 431],
    ['HPE_INVALID_METHOD', 'HTTP/1.1 400 Bad Request', 400],
  ])('%s answers %s in the ErrorBody shape, named by its request-id, and closes', (code, statusLine, status) => {
    const answer = parse(clientErrorAnswer(Object.assign(new Error(code), { code }), LIMITS, ID));
    expect(answer.statusLine).toBe(statusLine);
    expect(answer.head).toMatch(/\r\nConnection: close/);
    expect(answer.head).toContain(`\r\nrequest-id: ${ID}\r\n`);
    expect(answer.body).toEqual({ error: { code: status, message: expect.any(String) } });
  });

  it('answers nothing to a connection the client reset', () => {
    expect(clientErrorAnswer(Object.assign(new Error('reset'), { code: 'ECONNRESET' }), LIMITS, ID)).toBeUndefined();
  });
});

describe('serverOptions', () => {
  it('times the request (never the response), and checks the timeouts often enough', () => {
    expect(serverOptions(LIMITS)).toEqual({ headersTimeout: 20_000, requestTimeout: 120_000, keepAliveTimeout: 65_000, connectionsCheckingInterval: 1_000 });
    expect(serverOptions({ ...LIMITS, headersTimeoutMs: 1_000, bodyTimeoutMs: 0 })).toMatchObject({ requestTimeout: 0, connectionsCheckingInterval: 250 });
  });
});
