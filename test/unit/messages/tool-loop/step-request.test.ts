import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { checkToolLoop, prepareToolLoop, type ToolLoopSetup } from '#src/messages/tool-loop/prepare-tool-loop.ts';
import { buildStepRequest, modelHistory, type LoopTurn } from '#src/messages/tool-loop/step-request.ts';
import type { ApiFamily } from '#src/providers/provider-adapter.ts';
import type { GatewayToolOutcome, ServerToolRuntime } from '#src/server-tools/index.ts';
import { serverToolsConfig } from '#test/helpers/server-tool-context.ts';

const WEATHER = { name: 'weather', description: 'Weather', input_schema: { type: 'object' } };
const ANTHROPIC_SEARCH = { type: 'web_search_20250305', name: 'anthropic_search' };
const config = serverToolsConfig({ web_search: { backend: 'searxng', base_url: 'http://127.0.0.1:1' } });

function original(extra: Partial<MessageRequest> = {}): MessageRequest {
  const request = {
    model: 'test/model',
    max_tokens: 100,
    messages: [{ role: 'user', content: 'Search for alpha.' }],
    tools: [WEATHER, { type: 'gateway:web_search' }, ANTHROPIC_SEARCH],
    ...extra,
  } as MessageRequest;
  return structuredClone(request);
}

async function setupOf(request: MessageRequest): Promise<ToolLoopSetup> {
  return (await prepareToolLoop(request, checkToolLoop(request, config), {} as Pick<ServerToolRuntime, 'mcp'>)).setup;
}

const SEARCH_ID = 'srvtoolu_gw_unit00000000001';
const outcome: GatewayToolOutcome = {
  toolUseId: SEARCH_ID,
  isError: false,
  modelContent: [{ type: 'search_result', source: 'https://a.example/', title: 'A', content: [{ type: 'text', text: 'alpha is first' }], citations: { enabled: true } }],
  modelText: 'Search results for "alpha":\n\n[1] A\nURL: https://a.example/\nalpha is first',
  clientResult: { type: 'web_search_tool_result', tool_use_id: SEARCH_ID, content: [] },
  usage: { web_search_requests: 1 },
};
const turn: LoopTurn = { assistant: [{ type: 'text', text: 'Searching.' }, { type: 'tool_use', id: SEARCH_ID, name: 'web_search', input: { query: 'alpha' } }] as LoopTurn['assistant'], outcomes: [outcome] };

async function build(request: MessageRequest, family: ApiFamily, turns: LoopTurn[], toolsDisabled = false): Promise<MessageRequest> {
  const setup = await setupOf(request);
  const frozen = Object.freeze(request);
  return buildStepRequest({ original: frozen, setup, history: modelHistory(frozen, setup, family), turns, family, toolsDisabled });
}

describe('buildStepRequest', () => {
  it('the first step: each gateway entry becomes its function tool in place; other tools and fields as sent', async () => {
    const request = original({ tool_choice: { type: 'any' }, temperature: 0.2 });
    const snapshot = structuredClone(request);
    const step = await build(request, 'anthropic', []);
    expect(step.tools).toEqual([WEATHER, expect.objectContaining({ name: 'web_search', input_schema: expect.objectContaining({ required: ['query'] }) }), ANTHROPIC_SEARCH]);
    expect(step.tool_choice).toEqual({ type: 'any' });
    expect(step).toMatchObject({ model: 'test/model', max_tokens: 100, temperature: 0.2, messages: request.messages });
    expect(request).toEqual(snapshot);
  });

  it('later steps append the assistant turn and its results: search_result blocks for Anthropic-format upstreams', async () => {
    const step = await build(original(), 'anthropic', [turn]);
    expect(step.messages).toEqual([
      { role: 'user', content: 'Search for alpha.' },
      { role: 'assistant', content: turn.assistant },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: SEARCH_ID, content: outcome.modelContent }] },
    ]);
  });

  it('text results for translated vendors', async () => {
    const step = await build(original(), 'openai-chat', [turn]);
    expect(step.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: SEARCH_ID, content: outcome.modelText }] });
  });

  it.each([
    [{ type: 'any', disable_parallel_tool_use: true }, { type: 'auto', disable_parallel_tool_use: true }],
    [{ type: 'tool', name: 'web_search' }, { type: 'auto' }],
    [{ type: 'auto' }, { type: 'auto' }],
    [undefined, undefined],
  ])('after the first step, tool_choice %j becomes %j', async (choice, expected) => {
    const step = await build(original(choice ? { tool_choice: choice as MessageRequest['tool_choice'] } : {}), 'anthropic', [turn]);
    expect(step.tool_choice).toEqual(expected);
  });

  it.each(['anthropic', 'openai-chat', 'openai-responses', 'google', 'azure', 'openai-compatible'] as const)('the final turn on %s: the same tools, tool_choice none', async (family) => {
    const step = await build(original({ tool_choice: { type: 'any' } }), family, [turn], true);
    expect(step.tool_choice).toEqual({ type: 'none' });
    expect(step.tools).toHaveLength(3);
  });

  it('the final turn on Bedrock: no tools, and the tool turns written as text', async () => {
    const step = await build(original({ tool_choice: { type: 'auto' } }), 'bedrock', [turn], true);
    expect(step.tools).toBeUndefined();
    expect(step.tool_choice).toBeUndefined();
    expect(step.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'Searching.' }, { type: 'text', text: `[Tool call ${SEARCH_ID}: web_search({"query":"alpha"})]` }] },
      { role: 'user', content: [{ type: 'text', text: `[Tool result ${SEARCH_ID}]\n${outcome.modelText}` }] },
    ]);
  });

  it('the top-level cache_control lands on the growing conversation\'s last block', async () => {
    const step = await build(original({ cache_control: { type: 'ephemeral' } }), 'anthropic', [turn]);
    expect(step.cache_control).toBeUndefined();
    expect(step.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: SEARCH_ID, content: outcome.modelContent, cache_control: { type: 'ephemeral' } }] });
    expect(step.messages[0]).toEqual({ role: 'user', content: 'Search for alpha.' });
  });

  it('with every breakpoint taken (the original\'s marker fell on a marked block), later steps leave it out', async () => {
    const marked = { type: 'ephemeral' } as const;
    const request = original({
      cache_control: marked,
      system: [1, 2, 3].map((n) => ({ type: 'text' as const, text: `rule ${n}`, cache_control: marked })),
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Search for alpha.', cache_control: marked }] }] as MessageRequest['messages'],
    });
    const first = await build(request, 'anthropic', []);
    expect(first.cache_control).toBeUndefined();
    const later = await build(request, 'anthropic', [turn]);
    expect(later.cache_control).toBeUndefined();
    expect(JSON.stringify(later.messages.slice(1))).not.toContain('cache_control');
  });

  it('a passed-back conversation\'s gateway blocks become the tool turns the model saw', async () => {
    const request = original({
      messages: [
        { role: 'user', content: 'Search for alpha.' },
        { role: 'assistant', content: [{ type: 'server_tool_use', id: SEARCH_ID, name: 'web_search', input: { query: 'alpha' } }, { type: 'web_search_tool_result', tool_use_id: SEARCH_ID, content: [] }, { type: 'text', text: 'Nothing found.' }] },
        { role: 'user', content: 'Try again.' },
      ] as MessageRequest['messages'],
    });
    const step = await build(request, 'anthropic', []);
    expect(step.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(step.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'tool_use', id: SEARCH_ID, name: 'web_search', input: { query: 'alpha' } }] });
  });
});
