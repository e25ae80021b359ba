import { describe, expect, it } from 'vitest';
import { AllAttemptsFailedError, BadRequestError, CredentialUnavailableError, GatewayError, UnsupportedFeatureError, UpstreamError, type UpstreamFailureKind } from '#src/errors.ts';
import { runAttempts, type AttemptsRun } from '#src/messages/run-attempts.ts';
import type { Attempt } from '#src/routing/attempt.ts';
import { attempt as attemptOn } from '#test/unit/routing/attempt-fixtures.ts';

/** What executing an attempt does: answer, refuse, or fail with a kind (and upstream status). */
type Outcome = 'answer' | 'refuse' | { kind: UpstreamFailureKind; status?: number } | 'crash' | 'unsupported' | 'client-mistake' | 'credential-gone';

interface Scripted {
  attempt: Attempt;
  outcome: Outcome;
}

function attempt(model: string, providerSlug: string, outcome: Outcome, isByok = false): Scripted {
  return { attempt: attemptOn(model, providerSlug, isByok ? { credential: { kind: 'byok', credentialId: `cred-${providerSlug}` } } : {}), outcome };
}

const failing = (kind: UpstreamFailureKind, status?: number): Outcome => ({ kind, ...(status === undefined ? {} : { status }) });

interface Result {
  text: string;
  refused: boolean;
}

function run(scripted: Scripted[], options: { signal?: AbortSignal; startWith?: number; unbilled?: true } = {}) {
  const executed: string[] = [];
  const outcomes = new Map(scripted.map((item) => [item.attempt, item.outcome]));
  const attempts = scripted.map((item) => item.attempt);
  const promise = runAttempts<Result>(
    attempts,
    async (item) => {
      executed.push(`${attempts.indexOf(item)}:${item.model}@${item.provider.slug}`);
      const outcome = outcomes.get(item) as Outcome;
      if (outcome === 'crash') throw new TypeError('a bug');
      if (outcome === 'unsupported') throw new UnsupportedFeatureError(`web_search_20250305 is not supported by ${item.provider.slug}`);
      if (outcome === 'client-mistake') throw new BadRequestError('tool_result toolu_1 does not answer a tool_use of an earlier assistant turn');
      if (outcome === 'credential-gone') throw new CredentialUnavailableError(`cred-${item.provider.slug}`);
      if (outcome === 'answer') return { text: `answer from ${item.model}@${item.provider.slug}`, refused: false };
      if (outcome === 'refuse') return { text: `refusal from ${item.model}@${item.provider.slug}`, refused: true };
      throw new UpstreamError({ provider: item.provider.slug, kind: outcome.kind, ...(outcome.status ? { upstreamStatus: outcome.status } : {}) });
    },
    { signal: options.signal ?? new AbortController().signal, isRefusal: (result) => result.refused, reportedUsage: (result) => ({ input_tokens: result.text.length, output_tokens: 1 }), ...(options.unbilled ? { refusalBilled: () => false } : {}), ...(options.startWith === undefined ? {} : { startWith: options.startWith }) },
  );
  return { promise, executed };
}

/** The answer of a run that must have succeeded. */
async function answered(promise: Promise<AttemptsRun<Result>>) {
  const outcome = await promise;
  if (!outcome.ok) throw new Error(`expected an answer, got ${String(outcome.error)}`);
  return outcome;
}

/** The error of a run that must have failed. */
async function failed(promise: Promise<AttemptsRun<Result>>): Promise<unknown> {
  const outcome = await promise;
  if (outcome.ok) throw new Error(`expected a failure, got ${outcome.result.text}`);
  return outcome.error;
}

/** Records as `model@provider:status`. */
function statuses(outcome: AttemptsRun<Result>): string[] {
  return outcome.records.map((record) => `${record.attempt.model}@${record.attempt.provider.slug}:${record.status}`);
}

describe('runAttempts', () => {
  it('returns the first answer without trying the rest', async () => {
    const { promise, executed } = run([attempt('a', 'p1', 'answer'), attempt('a', 'p2', 'answer')]);
    const outcome = await answered(promise);
    expect(outcome).toMatchObject({ index: 0, result: { text: 'answer from a@p1' } });
    expect(executed).toEqual(['0:a@p1']);
    expect(outcome.records).toEqual([{ attempt: outcome.attempt, index: 0, status: 'success', httpStatus: 200, durationMs: expect.any(Number) }]);
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
    const { promise, executed } = run([attempt('a', 'p1', failing(kind, status), true), attempt('a', 'p2', 'answer')]);
    const outcome = await answered(promise);
    expect([outcome.index, outcome.attempt.provider.slug]).toEqual([1, 'p2']);
    expect(executed).toEqual(['0:a@p1', '1:a@p2']);
    expect(outcome.records.map((record) => [record.index, record.status, record.httpStatus, record.attempt.credential.kind])).toEqual([
      [0, kind, status ?? null, 'byok'],
      [1, 'success', 200, 'shared'],
    ]);
  });

  it('moves on past a BYOK credential deleted since planning, recording it as credential_unavailable', async () => {
    const { promise, executed } = run([attempt('a', 'p1', 'credential-gone', true), attempt('a', 'p1', 'answer')]);
    const outcome = await answered(promise);
    expect(executed).toEqual(['0:a@p1', '1:a@p1']);
    expect(statuses(outcome)).toEqual(['a@p1:credential_unavailable', 'a@p1:success']);
    expect(outcome.records[0]?.httpStatus).toBeNull();
  });

  it('answers 503 naming the vanished credential when no other attempt is left', async () => {
    const error = await failed(run([attempt('a', 'p1', 'credential-gone', true)]).promise);
    expect(error).toBeInstanceOf(AllAttemptsFailedError);
    expect(error).toMatchObject({ status: 503, publicMessage: 'Every attempt failed: a on P1: credential unavailable' });
  });

  it('stops at once on a failure caused by the request, and records it', async () => {
    const { promise, executed } = run([attempt('a', 'p1', failing('invalid_request', 400)), attempt('a', 'p2', 'answer')]);
    const outcome = await promise;
    expect(outcome.ok).toBe(false);
    expect(await failed(promise)).toMatchObject({ kind: 'invalid_request', status: 400 });
    expect(executed).toEqual(['0:a@p1']);
    expect(statuses(outcome)).toEqual(['a@p1:invalid_request']);
  });

  it('hands an error that is not an attempt failure back untouched, without a record', async () => {
    const { promise, executed } = run([attempt('a', 'p1', 'crash'), attempt('a', 'p2', 'answer')]);
    expect(await failed(promise)).toBeInstanceOf(TypeError);
    expect((await promise).records).toEqual([]);
    expect(executed).toEqual(['0:a@p1']);
  });

  it('goes on past a vendor that cannot serve a feature the request uses, to one that can', async () => {
    const { promise, executed } = run([attempt('openai/gpt-5', 'openai', 'unsupported'), attempt('anthropic/claude', 'anthropic', 'answer')]);
    const outcome = await answered(promise);
    expect(outcome.attempt.provider.slug).toBe('anthropic');
    expect(executed).toEqual(['0:openai/gpt-5@openai', '1:anthropic/claude@anthropic']);
    expect(outcome.records.map((record) => [record.status, record.httpStatus])).toEqual([
      ['unsupported', null],
      ['success', 200],
    ]);
  });

  it("stops at once on a 400 that is the client's mistake, not a vendor's limit, without trying another endpoint", async () => {
    const { promise, executed } = run([attempt('openai/gpt-5', 'openai', 'client-mistake'), attempt('anthropic/claude', 'anthropic', 'answer')]);
    const error = await failed(promise);
    expect(error).toMatchObject({ status: 400, publicMessage: expect.stringContaining('toolu_1') });
    expect(error).not.toBeInstanceOf(UnsupportedFeatureError);
    expect(executed).toEqual(['0:openai/gpt-5@openai']);
  });

  it('answers the first unsupported-feature 400 when no endpoint can serve the request', async () => {
    const { promise } = run([attempt('openai/gpt-5', 'openai', 'unsupported'), attempt('google/gemini', 'google', 'unsupported')]);
    expect(await failed(promise)).toMatchObject({ status: 400, publicMessage: 'Invalid request parameters: web_search_20250305 is not supported by openai' });
  });

  it('prefers the upstream failures over an unsupported feature when both happened', async () => {
    const { promise } = run([attempt('openai/gpt-5', 'openai', 'unsupported'), attempt('anthropic/claude', 'anthropic', failing('overloaded', 529))]);
    expect(await failed(promise)).toBeInstanceOf(AllAttemptsFailedError);
  });

  it('skips the other providers of a model that refused and goes to the next model', async () => {
    const { promise, executed } = run([attempt('a', 'p1', 'refuse'), attempt('a', 'p2', 'answer'), attempt('b', 'p1', 'answer')]);
    const outcome = await answered(promise);
    expect(executed).toEqual(['0:a@p1', '2:b@p1']);
    expect(outcome).toMatchObject({ index: 2, result: { text: 'answer from b@p1' } });
    expect(statuses(outcome)).toEqual(['a@p1:refusal', 'b@p1:success']);
  });

  it.each<[string, Scripted[], (number | null)[]]>([
    ['an answer after it', [attempt('a', 'p1', 'refuse'), attempt('b', 'p1', 'answer')], ['refusal from a@p1'.length, null]],
    ['a request error after it', [attempt('a', 'p1', 'refuse'), attempt('b', 'p1', 'client-mistake')], ['refusal from a@p1'.length]],
    ['every model refusing (the last one the answer)', [attempt('a', 'p1', 'refuse'), attempt('b', 'p1', 'refuse')], ['refusal from a@p1'.length, null]],
  ])('keeps what a refusal moved on from reported in its record: %s', async (_, scripted, inputs) => {
    const outcome = await run(scripted).promise;
    expect(outcome.records.map((record) => record.refusedUsage?.input_tokens ?? null)).toEqual(inputs);
  });

  it.each<[string, Scripted[], (true | null)[]]>([
    ['an answer after it', [attempt('a', 'p1', 'refuse'), attempt('b', 'p1', 'answer')], [true, null]],
    ['every model refusing (the last one the answer, its usage the answer\'s)', [attempt('a', 'p1', 'refuse'), attempt('b', 'p1', 'refuse')], [true, null]],
  ])('marks a refusal its upstream does not bill on its record: %s', async (_, scripted, marks) => {
    const outcome = await run(scripted, { unbilled: true }).promise;
    expect(outcome.records.map((record) => record.refusalUnbilled ?? null)).toEqual(marks);
    expect(outcome.records[0]?.refusedUsage?.input_tokens).toBe('refusal from a@p1'.length);
  });

  it('returns the last refusal when every model refuses', async () => {
    const outcome = await answered(run([attempt('a', 'p1', 'refuse'), attempt('b', 'p1', 'refuse'), attempt('c', 'p2', 'refuse')]).promise);
    expect(outcome).toMatchObject({ index: 2, result: { text: 'refusal from c@p2', refused: true } });
    expect(outcome.records.map((record) => record.status)).toEqual(['refusal', 'refusal', 'refusal']);
  });

  it('returns a refusal rather than an error when the later models fail', async () => {
    const outcome = await answered(run([attempt('a', 'p1', 'refuse'), attempt('b', 'p1', failing('server_error', 500))]).promise);
    expect(outcome).toMatchObject({ index: 0, result: { refused: true } });
    expect(outcome.records.map((record) => record.status)).toEqual(['refusal', 'server_error']);
  });

  it('never goes back to a model that refused, even when endpoints of models are interleaved', async () => {
    // partition "none" sorts endpoints of every model together, so a model can come back later in the plan.
    const { promise, executed } = run([attempt('a', 'p1', 'refuse'), attempt('b', 'p1', 'refuse'), attempt('a', 'p2', 'answer'), attempt('c', 'p1', 'answer')]);
    const outcome = await answered(promise);
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
    const error = await failed(promise);
    expect(error).toBeInstanceOf(AllAttemptsFailedError);
    expect(error).toMatchObject({ status });
    expect((await promise).records).toHaveLength(outcomes.length);
  });

  it('says in its message what was tried and how each attempt ended, without upstream bodies', async () => {
    const error = (await failed(run([attempt('a/x', 'anthropic', failing('overloaded', 529)), attempt('b/y', 'groq', failing('timeout'))]).promise)) as GatewayError;
    expect(error.publicMessage).toBe('Every attempt failed: a/x on ANTHROPIC: overloaded (529); b/y on GROQ: timeout');
  });

  it('tries nothing once the signal has fired and says the time ran out', async () => {
    const controller = new AbortController();
    controller.abort();
    const { promise, executed } = run([attempt('a', 'p1', 'answer')], { signal: controller.signal });
    const error = await failed(promise);
    expect(executed).toEqual([]);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 504, publicMessage: 'The request ran out of time before any provider answered' });
  });

  it('stops after the attempt during which the signal fired', async () => {
    const controller = new AbortController();
    const executed: string[] = [];
    const attempts = [attemptOn('a', 'p1'), attemptOn('a', 'p2')];
    const outcome = await runAttempts(
      attempts,
      async (item) => {
        executed.push(item.provider.slug);
        controller.abort();
        throw new UpstreamError({ provider: item.provider.slug, kind: 'timeout' });
      },
      { signal: controller.signal },
    );
    expect(outcome).toMatchObject({ ok: false, error: { status: 504 } });
    expect(executed).toEqual(['p1']);
  });

  it('measures each attempt', async () => {
    const outcome = await runAttempts([attemptOn('a', 'p1')], () => new Promise<string>((resolve) => setTimeout(() => resolve('late'), 60)), {
      signal: new AbortController().signal,
    });
    expect(outcome.records[0]?.durationMs).toBeGreaterThanOrEqual(50);
  });
});

describe('runAttempts, step after step (the tool loop)', () => {
  it('starts with the attempt that served the previous step and stays there while it answers', async () => {
    const { promise, executed } = run([attempt('a', 'p1', 'answer'), attempt('a', 'p2', 'answer'), attempt('a', 'p3', 'answer')], { startWith: 1 });
    const outcome = await answered(promise);
    expect(executed).toEqual(['1:a@p2']);
    expect([outcome.index, outcome.records[0]?.index]).toEqual([1, 1]);
  });

  it('falls back to the rest of the plan, in plan order, when that attempt fails', async () => {
    const { promise, executed } = run([attempt('a', 'p1', failing('overloaded', 529)), attempt('a', 'p2', failing('overloaded', 529)), attempt('a', 'p3', 'answer')], { startWith: 1 });
    const outcome = await answered(promise);
    expect(executed).toEqual(['1:a@p2', '0:a@p1', '2:a@p3']);
    expect(outcome.records.map((record) => record.index)).toEqual([1, 0, 2]);
    expect(outcome.index).toBe(2);
  });

  it.each([[-1], [0], [3]])('keeps plan order for startWith %i', async (startWith) => {
    const { promise, executed } = run([attempt('a', 'p1', 'answer'), attempt('a', 'p2', 'answer'), attempt('a', 'p3', 'answer')], { startWith });
    await answered(promise);
    expect(executed).toEqual(['0:a@p1']);
  });
});
