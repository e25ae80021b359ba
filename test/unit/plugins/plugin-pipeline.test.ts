import { describe, expect, it } from 'vitest';
import type { DocumentBlockParam, GatewayMetadata, MessageRequest, MessageResponse } from '#src/api-types.ts';
import { ContextLengthExceededError, UnsupportedFeatureError } from '#src/errors.ts';
import { applyPluginsPerAttempt, applyPluginsToMessage } from '#src/plugins/plugin-pipeline.ts';
import { enabledPlugins } from '#src/plugins/plugin-list.ts';
import { newPluginState } from '#src/plugins/plugin-state.ts';
import { attempt } from '#test/unit/routing/attempt-fixtures.ts';

// 800 characters of user text: 200 tokens.
const request: MessageRequest = { model: 'm/x', max_tokens: 50, messages: [{ role: 'user', content: 'x'.repeat(800) }] };

describe('applyPluginsPerAttempt: the context-length rule', () => {
  it.each<[string, number | null, boolean]>([
    ['an unknown context length', null, true],
    ['a context that holds the prompt', 200, true],
    ['a context too small', 199, false],
  ])('with %s', (_case, contextLength, sent) => {
    const state = newPluginState({});
    const run = () => applyPluginsPerAttempt(request, attempt('m/x', 'alpha', { contextLength }), state);
    if (sent) expect(run()).toBe(request);
    else expect(run).toThrow(ContextLengthExceededError);
  });

  it('is an UnsupportedFeatureError, so the runner skips to the next attempt, naming model, provider and sizes', () => {
    try {
      applyPluginsPerAttempt(request, attempt('m/x', 'alpha', { contextLength: 100 }), newPluginState({}));
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(UnsupportedFeatureError);
      expect((error as Error).message).toBe(
        'Invalid request parameters: prompt is too long: about 200 tokens (estimated) > 100 maximum; the prompt does not fit the context length of 100 tokens of m/x on ALPHA; enable the context-compression plugin to remove messages from the middle',
      );
    }
  });

  it('measures a request once across attempts', () => {
    const state = newPluginState({});
    applyPluginsPerAttempt(request, attempt('m/x', 'alpha', { contextLength: 1000 }), state);
    expect(state.estimate).toEqual({ request, tokens: 200 });
    state.estimate = { request, tokens: 5 };
    expect(applyPluginsPerAttempt(request, attempt('m/x', 'beta', { contextLength: 100 }), state)).toBe(request);
  });

  it('records what compression did for each attempt', () => {
    const state = newPluginState(enabledPlugins([{ id: 'context-compression' }]));
    const small = attempt('m/x', 'alpha', { contextLength: 300 });
    const large = attempt('m/y', 'beta', { contextLength: 100_000 });
    applyPluginsPerAttempt(request, small, state);
    applyPluginsPerAttempt(request, large, state);
    expect(state.attemptReports.get(small)).toEqual([{ id: 'context-compression', messages_removed: 0, context_length: 300, estimated_input_tokens: 200 }]);
    expect(state.attemptReports.get(large)).toEqual([{ id: 'context-compression', messages_removed: 0, context_length: 100_000, estimated_input_tokens: 200 }]);
  });
});

describe('applyPluginsPerAttempt: file-parser', () => {
  const original = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } } as DocumentBlockParam;
  const textSource = { type: 'text', media_type: 'text/plain', data: 'the text' } as const;
  const parsed: MessageRequest = { model: 'm/x', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'document', source: textSource }] }] };

  it.each<[string, 'native' | 'pdf-text', boolean, 'base64' | 'text']>([
    ['native engine, an endpoint that reads PDFs', 'native', true, 'base64'],
    ['native engine, an endpoint without PDF input', 'native', false, 'text'],
    ['pdf-text engine, an endpoint that reads PDFs', 'pdf-text', true, 'text'],
  ])('%s', (_case, engine, pdfInput, sent) => {
    const state = newPluginState(enabledPlugins([{ id: 'file-parser', pdf: { engine } }]));
    state.parsedPdfs = new Map([[textSource, original]]);
    const target = attempt('m/x', 'alpha', { pdfInput });
    const prepared = applyPluginsPerAttempt(parsed, target, state);
    expect(((prepared.messages[0]?.content as DocumentBlockParam[])[0]?.source as { type: string }).type).toBe(sent);
    expect(state.attemptReports.get(target)).toEqual([{ id: 'file-parser', engine, documents_as_text: sent === 'text' ? 1 : 0, documents_native: sent === 'base64' ? 1 : 0 }]);
  });
});

describe('applyPluginsToMessage', () => {
  const metadata = { attempt: 1, summary: 's' } as GatewayMetadata;
  const message: MessageResponse = { id: 'm', type: 'message', role: 'assistant', model: 'm/x', content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 }, gateway_metadata: metadata };

  it('passes the very same message on when no plugin is enabled', () => {
    expect(applyPluginsToMessage(message, newPluginState({}), attempt('m/x', 'alpha'))).toBe(message);
  });

  it('adds the reports before routing, of the attempt that answered, and of the answer, in that order', () => {
    const state = newPluginState(enabledPlugins([{ id: 'moderation' }, { id: 'context-compression' }, { id: 'response-healing' }]));
    const served = attempt('m/x', 'alpha');
    state.reports.push({ id: 'moderation', status: 'passed' });
    state.attemptReports.set(served, [{ id: 'context-compression', messages_removed: 2, context_length: 10, estimated_input_tokens: 9 }]);
    state.attemptReports.set(attempt('m/x', 'beta'), [{ id: 'context-compression', messages_removed: 9, context_length: 1, estimated_input_tokens: 1 }]);
    const out = applyPluginsToMessage(message, state, served);
    expect(out.gateway_metadata?.plugins?.map((report) => report.id)).toEqual(['moderation', 'context-compression', 'response-healing']);
    expect(out.gateway_metadata?.plugins?.[1]).toMatchObject({ messages_removed: 2 });
  });

  it('adds no reports when the client did not ask for metadata', () => {
    const { gateway_metadata: _dropped, ...bare } = message;
    const state = newPluginState(enabledPlugins([{ id: 'moderation' }]));
    state.reports.push({ id: 'moderation', status: 'passed' });
    expect(applyPluginsToMessage(bare, state, attempt('m/x', 'alpha'))).toEqual(bare);
  });
});
