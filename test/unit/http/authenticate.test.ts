import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '#src/errors.ts';
import { authenticationOutcome, createSecurityHandlers, keyKindProblem, preferAuthenticationFailure } from '#src/http/authenticate.ts';
import type { Caller, KeyAuthenticator } from '#src/http/caller.ts';
import { BUNDLED_SPEC_PATH } from '#src/http/bundled-spec.ts';
import { loadSecurityModel } from '#src/http/security-model.ts';

const INFERENCE = 'sb-inference-key-000000000000000000000000000000';
const MANAGEMENT = 'sb-management-key-00000000000000000000000000000';
const callers: Record<string, Caller> = {
  [INFERENCE]: { accountId: 'a', workspaceId: 'w', keyHash: 'i'.repeat(64), kind: 'inference', limits: null },
  [MANAGEMENT]: { accountId: 'a', workspaceId: 'w', keyHash: 'm'.repeat(64), kind: 'management', limits: null },
};

function counting(): { authenticate: KeyAuthenticator; lookups: string[] } {
  const lookups: string[] = [];
  return { lookups, authenticate: async (key) => (lookups.push(key), callers[key]) };
}

function request(headers: Record<string, string>, operationId = 'createMessage', kind: 'inference' | 'management' = 'inference') {
  const res = { locals: {} as Record<string, unknown> };
  return { headers, openapi: { schema: { operationId, 'x-switchboard-key-kind': kind } }, res } as unknown as Request & { res: typeof res };
}

/** Runs every handler for one request as the validator does: all at once, each settled on its own. */
async function runAll(handlers: ReturnType<typeof createSecurityHandlers>, req: Request) {
  return Promise.allSettled(Object.values(handlers).map((handler) => handler(req)));
}

describe('security handlers', () => {
  const security = loadSecurityModel(BUNDLED_SPEC_PATH);

  it('look the key up once per request, whichever schemes the validator runs', async () => {
    const { authenticate, lookups } = counting();
    const handlers = createSecurityHandlers(authenticate, security);
    const req = request({ authorization: `Bearer ${INFERENCE}`, 'x-api-key': 'sk-ant-api03-provider' });
    const results = await runAll(handlers, req);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(lookups).toEqual([INFERENCE]);
    expect(req.res.locals.caller).toEqual(callers[INFERENCE]);
  });

  it('check the kind on the key that authenticated, for every scheme alike', async () => {
    const { authenticate } = counting();
    const handlers = createSecurityHandlers(authenticate, security);
    const results = await runAll(handlers, request({ 'x-api-key': MANAGEMENT }));
    for (const result of results) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toMatchObject({ status: 403 });
    }
  });

  it('turn a failed lookup into a 500, not a 401', async () => {
    const handlers = createSecurityHandlers(async () => Promise.reject(new Error('database down')), security);
    const [result] = await runAll(handlers, request({ 'x-api-key': INFERENCE }));
    expect((result as PromiseRejectedResult).reason).toMatchObject({ status: 500, publicMessage: 'Internal Server Error' });
  });
});

describe('authenticationOutcome', () => {
  const security = loadSecurityModel(BUNDLED_SPEC_PATH);
  const known = (key: string): Caller | undefined => callers[key];

  it('is the outcome itself, not a promise, when the authenticator answers at once', () => {
    const outcome = authenticationOutcome(request({ authorization: `Bearer ${INFERENCE}` }), known, security);
    expect(outcome).not.toBeInstanceOf(Promise);
    expect(outcome).toEqual({ caller: callers[INFERENCE] });
    const refused = authenticationOutcome(request({ 'x-api-key': MANAGEMENT }), known, security);
    expect(refused).toMatchObject({ error: { status: 403 } });
  });

  it('gives every asker of one request the same outcome, looked up once', async () => {
    const { authenticate, lookups } = counting();
    const req = request({ 'x-api-key': INFERENCE });
    const first = authenticationOutcome(req, authenticate, security);
    expect(first).toBeInstanceOf(Promise);
    expect(authenticationOutcome(req, authenticate, security)).toBe(first);
    expect(await first).toEqual({ caller: callers[INFERENCE] });
    // Once settled, later askers get the outcome itself.
    expect(authenticationOutcome(req, authenticate, security)).toEqual({ caller: callers[INFERENCE] });
    expect(lookups).toEqual([INFERENCE]);
  });

  it('goes on to the next presented key after one the authenticator does not know, at once or looked up', async () => {
    const unknown = 'sb-unknown-key-000000000000000000000000000000';
    const mixed: KeyAuthenticator = (key) => (key === unknown ? Promise.resolve(undefined) : callers[key]);
    const outcome = authenticationOutcome(request({ authorization: `Bearer ${unknown}`, 'x-api-key': INFERENCE }), mixed, security);
    expect(await outcome).toEqual({ caller: callers[INFERENCE] });
    expect(authenticationOutcome(request({ 'x-api-key': unknown }), () => undefined, security)).toMatchObject({ error: { status: 401, publicMessage: 'Invalid API key' } });
  });

  it('turns an authenticator that throws at once into a 500, as a failed lookup', () => {
    const throwing: KeyAuthenticator = () => {
      throw new Error('cache broken');
    };
    expect(authenticationOutcome(request({ 'x-api-key': INFERENCE }), throwing, security)).toMatchObject({ error: { status: 500, publicMessage: 'Internal Server Error' } });
  });
});

describe('preferAuthenticationFailure', () => {
  const security = loadSecurityModel(BUNDLED_SPEC_PATH);
  const pass = (error: unknown, req: Request): unknown => {
    let passed: unknown;
    preferAuthenticationFailure(error, req, {} as never, (value?: unknown) => (passed = value));
    return passed;
  };

  it("replaces the validator's first-alternative error with the request's own failure", async () => {
    const { authenticate } = counting();
    const req = request({ 'x-api-key': 'sb-unknown-key-000000000000000000000000000000' });
    await runAll(createSecurityHandlers(authenticate, security), req);
    const validatorError = { status: 401, message: 'Authorization header required', errors: [] };
    const passed = pass(validatorError, req);
    expect(passed).toBeInstanceOf(GatewayError);
    expect(passed).toMatchObject({ status: 401, publicMessage: 'Invalid API key' });
  });

  it('passes any other error on when authentication did not run or succeeded', async () => {
    const error = new Error('something else');
    expect(pass(error, request({}))).toBe(error);
    const { authenticate } = counting();
    const req = request({ authorization: `Bearer ${INFERENCE}` });
    await runAll(createSecurityHandlers(authenticate, security), req);
    expect(pass(error, req)).toBe(error);
  });
});

describe('keyKindProblem', () => {
  it.each([
    ['inference', 'inference', 'createMessage', undefined],
    ['inference', 'management', 'createMessage', 'Management keys cannot create messages; use an inference key'],
    ['inference', 'management', 'countMessageTokens', 'Management keys cannot count tokens; use an inference key'],
    ['inference', 'management', undefined, 'Management keys cannot call inference operations; use an inference key'],
    ['management', 'management', 'listKeys', undefined],
    ['management', 'inference', 'listKeys', 'Only management keys can perform this operation'],
    [undefined, 'inference', undefined, undefined],
    [undefined, 'management', undefined, undefined],
  ] as const)('operation for %s, key of kind %s, operation %s', (required, actual, operationId, message) => {
    const problem = keyKindProblem(required, actual, operationId);
    expect(problem?.publicMessage).toBe(message);
    if (problem) expect(problem.status).toBe(403);
  });
});
