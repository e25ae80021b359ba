import { describe, expect, it } from 'vitest';
import { BadRequestError, GatewayError, UnsupportedFeatureError, UpstreamError, type UpstreamFailureKind } from '#src/errors.ts';
import { AllAttemptsFailedError, runAttempts, type AttemptIdentity } from '#src/messages/run-attempts.ts';

interface Attempt extends AttemptIdentity {
  /** What executing the attempt does: answer, refuse, or fail with a kind (and upstream status). */
  outcome: 'answer' | 'refuse' | { kind: UpstreamFailureKind; status?: number } | 'crash' | 'unsupported' | 'client-mistake';
}

function attempt(model: string, providerSlug: string, outcome: Attempt['outcome'], isByok = false): Attempt {
  return { model, providerSlug, providerName: providerSlug.toUpperCase(), isByok, outcome };
}

const failing = (kind: UpstreamFailureKind, status?: number): Attempt['outcome'] => ({ kind, ...(status === undefined ? {} : { status }) });

interface Result {
  text: string;
  refused: boolean;
}

function run(attempts: Attempt[], options: { signal?: AbortSignal } = {}) {
  const executed: string[] = [];
  const failures: string[] = [];
  const promise = runAttempts<Attempt, Result>({
    attempts,
    identify: (item) => item,
    signal: options.signal ?? new AbortController().signal,
    isRefusal: (result) => result.refused,
    onFailure: (item, error) => failures.push(`${item.model}@${item.providerSlug}:${error.kind}`),
    async execute(item, index) {
      executed.push(`${index}:${item.model}@${item.providerSlug}`);
      if (item.outcome === 'crash') throw new TypeError('a bug');
      if (item.outcome === 'unsupported') throw new UnsupportedFeatureError(`web_search_20250305 is not supported by ${item.providerSlug}`);
      if (item.outcome === 'client-mistake') throw new BadRequestError('tool_result toolu_1 does not answer a tool_use of an earlier assistant turn');
      if (item.outcome === 'answer') return { text: `answer from ${item.model}@${item.providerSlug}`, refused: false };
      if (item.outcome === 'refuse') return { text: `refusal from ${item.model}@${item.providerSlug}`, refused: true };
      throw new UpstreamError({ provider: item.providerSlug, kind: item.outcome.kind, ...(item.outcome.status ? { upstreamStatus: item.outcome.status } : {}) });
    },
  });
  return { promise, executed, failures };
}

describe('runAttempts', () => {
  it('returns the first answer without trying the rest', async () => {
    const { promise, executed } = run([attempt('a', 'p1', 'answer'), attempt('a', 'p2', 'answer')]);
    const outcome = await promise;
    expect(outcome).toMatchObject({ index: 0, result: { text: 'answer from a@p1' } });
    expect(executed).toEqual(['0:a@p1']);
    expect(outcome.records).toEqual([{ provider: 'P1', providerSlug: 'p1', model: 'a', status: 'success', http_status: 200, is_byok: false, duration_ms: expect.any(Number) }]);
  });

  it.each([
    ['rate_limited', 429],
    ['overloaded', 529],
    ['server_error', 500],
    ['timeout', undefined],
    ['connection', undefined],
    ['malformed_response', undefined],
    ['authentication', 401],
    ['not_found', 404],
  ] as const)('moves on after a %s failure', async (kind, status) => {
    const { promise, executed, failures } = run([attempt('a', 'p1', failing(kind, status), true), attempt('a', 'p2', 'answer')]);
    const outcome = await promise;
    expect(outcome).toMatchObject({ index: 1, attempt: { providerSlug: 'p2' } });
    expect(executed).toEqual(['0:a@p1', '1:a@p2']);
    expect(failures).toEqual([`a@p1:${kind}`]);
    expect(outcome.records.map((record) => [record.status, record.http_status, record.is_byok])).toEqual([
      [kind, status ?? null, true],
      ['success', 200, false],
    ]);
  });

  it('stops at once on a failure caused by the request and reports it to onFailure', async () => {
    const { promise, executed, failures } = run([attempt('a', 'p1', failing('invalid_request', 400)), attempt('a', 'p2', 'answer')]);
    await expect(promise).rejects.toMatchObject({ kind: 'invalid_request', status: 400 });
    expect(executed).toEqual(['0:a@p1']);
    expect(failures).toEqual(['a@p1:invalid_request']);
  });

  it('lets an error that is not an upstream failure through untouched', async () => {
    const { promise, executed } = run([attempt('a', 'p1', 'crash'), attempt('a', 'p2', 'answer')]);
    await expect(promise).rejects.toBeInstanceOf(TypeError);
    expect(executed).toEqual(['0:a@p1']);
  });

  it('goes on past a vendor that cannot serve a feature the request uses, to one that can', async () => {
    const { promise, executed } = run([attempt('openai/gpt-5', 'openai', 'unsupported'), attempt('anthropic/claude', 'anthropic', 'answer')]);
    const outcome = await promise;
    expect(outcome.attempt.providerSlug).toBe('anthropic');
    expect(executed).toEqual(['0:openai/gpt-5@openai', '1:anthropic/claude@anthropic']);
    expect(outcome.records.map((record) => [record.status, record.http_status])).toEqual([
      ['unsupported', null],
      ['success', 200],
    ]);
  });

  it('stops at once on a 400 that is the client\'s mistake, not a vendor\'s limit, without trying another endpoint', async () => {
    const { promise, executed, failures } = run([attempt('openai/gpt-5', 'openai', 'client-mistake'), attempt('anthropic/claude', 'anthropic', 'answer')]);
    await expect(promise).rejects.toMatchObject({ status: 400, publicMessage: expect.stringContaining('toolu_1') });
    await expect(promise).rejects.not.toBeInstanceOf(UnsupportedFeatureError);
    expect(executed).toEqual(['0:openai/gpt-5@openai']);
    expect(failures).toEqual([]);
  });

  it('answers the first unsupported-feature 400 when no endpoint can serve the request', async () => {
    const { promise } = run([attempt('openai/gpt-5', 'openai', 'unsupported'), attempt('google/gemini', 'google', 'unsupported')]);
    await expect(promise).rejects.toMatchObject({ status: 400, publicMessage: 'Invalid request parameters: web_search_20250305 is not supported by openai' });
  });

  it('prefers the upstream failures over an unsupported feature when both happened', async () => {
    const { promise } = run([attempt('openai/gpt-5', 'openai', 'unsupported'), attempt('anthropic/claude', 'anthropic', failing('overloaded', 529))]);
    await expect(promise).rejects.toBeInstanceOf(AllAttemptsFailedError);
  });

  it('skips the other providers of a model that refused and goes to the next model', async () => {
    const { promise, executed } = run([attempt('a', 'p1', 'refuse'), attempt('a', 'p2', 'answer'), attempt('b', 'p1', 'answer')]);
    const outcome = await promise;
    expect(executed).toEqual(['0:a@p1', '2:b@p1']);
    expect(outcome).toMatchObject({ index: 2, result: { text: 'answer from b@p1' } });
    expect(outcome.records.map((record) => `${record.model}@${record.providerSlug}:${record.status}`)).toEqual(['a@p1:refusal', 'b@p1:success']);
  });

  it('returns the last refusal when every model refuses', async () => {
    const { promise } = run([attempt('a', 'p1', 'refuse'), attempt('b', 'p1', 'refuse'), attempt('c', 'p2', 'refuse')]);
    const outcome = await promise;
    expect(outcome).toMatchObject({ index: 2, result: { text: 'refusal from c@p2', refused: true } });
    expect(outcome.records.map((record) => record.status)).toEqual(['refusal', 'refusal', 'refusal']);
  });

  it('returns a refusal rather than an error when the later models fail', async () => {
    const { promise } = run([attempt('a', 'p1', 'refuse'), attempt('b', 'p1', failing('server_error', 500))]);
    const outcome = await promise;
    expect(outcome).toMatchObject({ index: 0, result: { refused: true } });
    expect(outcome.records.map((record) => record.status)).toEqual(['refusal', 'server_error']);
  });

  it('never goes back to a model that refused, even when endpoints of models are interleaved', async () => {
    // partition "none" sorts endpoints of every model together, so a model can come back later in the plan.
    const { promise, executed } = run([
      attempt('a', 'p1', 'refuse'),
      attempt('b', 'p1', 'refuse'),
      attempt('a', 'p2', 'answer'),
      attempt('c', 'p1', 'answer'),
    ]);
    const outcome = await promise;
    expect(executed).toEqual(['0:a@p1', '1:b@p1', '3:c@p1']);
    expect(outcome.result.text).toBe('answer from c@p1');
  });

  it.each([
    ['every failure is a rate limit', [failing('rate_limited', 429), failing('rate_limited', 429)], 429],
    ['failures are rate limits and overloads', [failing('rate_limited', 429), failing('overloaded', 529)], 503],
    ['failures are overloads and timeouts', [failing('overloaded', 503), failing('timeout')], 503],
    ['one failure is a server error', [failing('rate_limited', 429), failing('server_error', 500)], 502],
    ['failures are connection resets', [failing('connection'), failing('connection')], 502],
    ['one failure is a bad key', [failing('authentication', 401), failing('overloaded', 529)], 502],
  ] as const)('answers AllAttemptsFailedError with status %s -> %i', async (_name, outcomes, status) => {
    const { promise } = run(outcomes.map((outcome, index) => attempt('anthropic/claude-sonnet-4.5', `p${index + 1}`, outcome)));
    const error = await promise.catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(AllAttemptsFailedError);
    expect(error).toMatchObject({ status });
    expect((error as AllAttemptsFailedError).records).toHaveLength(outcomes.length);
  });

  it('says in its message what was tried and how each attempt ended, without upstream bodies', async () => {
    const { promise } = run([attempt('a/x', 'anthropic', failing('overloaded', 529)), attempt('b/y', 'groq', failing('timeout'))]);
    const error = (await promise.catch((thrown: unknown) => thrown)) as AllAttemptsFailedError;
    expect(error.publicMessage).toBe('Every attempt failed: a/x on ANTHROPIC: overloaded (529); b/y on GROQ: timeout');
  });

  it('tries nothing once the signal has fired and says the time ran out', async () => {
    const controller = new AbortController();
    controller.abort();
    const { promise, executed } = run([attempt('a', 'p1', 'answer')], { signal: controller.signal });
    const error = await promise.catch((thrown: unknown) => thrown);
    expect(executed).toEqual([]);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 503, publicMessage: 'The request ran out of time before any provider answered' });
  });

  it('stops after the attempt during which the signal fired', async () => {
    const controller = new AbortController();
    const executed: number[] = [];
    const promise = runAttempts<Attempt, Result>({
      attempts: [attempt('a', 'p1', 'answer'), attempt('a', 'p2', 'answer')],
      identify: (item) => item,
      signal: controller.signal,
      async execute(_item, index) {
        executed.push(index);
        controller.abort();
        throw new UpstreamError({ provider: 'p1', kind: 'timeout' });
      },
    });
    await expect(promise).rejects.toMatchObject({ status: 503 });
    expect(executed).toEqual([0]);
  });

  it('measures each attempt', async () => {
    const outcome = await runAttempts<Attempt, string>({
      attempts: [attempt('a', 'p1', 'answer')],
      identify: (item) => item,
      signal: new AbortController().signal,
      execute: () => new Promise((resolve) => setTimeout(() => resolve('late'), 60)),
    });
    expect(outcome.records[0]?.duration_ms).toBeGreaterThanOrEqual(50);
  });
});
