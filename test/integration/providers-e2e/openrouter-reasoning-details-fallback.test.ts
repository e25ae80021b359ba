/**
 * OpenRouter's `reasoning_details` go back only to the model that produced them, end to end through the
 * gateway with the official Anthropic SDK against a fake OpenRouter speaking its Chat Completions format. A
 * model's typed reasoning items are its own state (Claude's signed thinking, Gemini's thought signatures), as
 * Anthropic's thinking signatures are: after a fallback, or a routing change between turns, another model
 * behind OpenRouter would reject them (a signature it cannot verify) or misread them (another vendor's
 * format). Before, the gateway sent every thinking block's items to whichever model the turn went to.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { openAiChatStep, reply, startFakeOpenAiChat } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway } from '#test/helpers/start-gateway.ts';
import { useSuiteSetup } from '#test/helpers/suite-setup.ts';
import { WEATHER_TOOL } from '#test/integration/providers-e2e/e2e-support.ts';
import { anthropicClient, modelYaml } from '#test/integration/providers-e2e/e2e-target.ts';

const CLAUDE = { slug: 'e2e/or-claude', upstream: 'anthropic/claude-sonnet-4.5' };
const GEMINI = { slug: 'e2e/or-gemini', upstream: 'google/gemini-3-pro-preview' };

const setup = useSuiteSetup({
  async start() {
    const upstream = await startFakeOpenAiChat();
    const models = [CLAUDE, GEMINI].map((model) => modelYaml({ slug: model.slug, provider: 'openrouter', upstreamModel: model.upstream, pricing: '{ input: 3, output: 15 }' }));
    const catalogYaml = ['providers:', `  openrouter: { base_url: "${upstream.baseURL}", api_key: "sk-or-v1-fallback-0001" }`, 'models:', ...models, ''].join('\n');
    const gateway = await startTestGateway({ catalogYaml });
    return { upstream, gateway, client: anthropicClient(gateway) };
  },
  async stop({ upstream, gateway }) {
    await gateway.close();
    await upstream.close();
  },
  reset: ({ upstream }) => upstream.clear(),
});

type ChatMessage = { role: string; reasoning?: string; reasoning_details?: unknown[] };
type SentBody = { model: string; messages: ChatMessage[] };

const question = { role: 'user' as const, content: 'What is the weather in Paris?' };
const THOUGHT = 'The user wants the weather; I will call the tool.';
// Claude's signed thinking as OpenRouter hands it out: only Claude can verify the signature.
const CLAUDE_DETAILS = [{ type: 'reasoning.text', text: THOUGHT, signature: 'ErUBCkYIBxgCIkB3mQ3+claude+signature==', format: 'anthropic-claude-v1', index: 0 }];

/** Claude's first turn through OpenRouter: its reasoning, its typed items and a tool call. */
const claudeTurn = reply.json({
  id: 'gen-or-claude-1',
  created: 1767225600,
  model: CLAUDE.upstream,
  provider: 'Anthropic',
  object: 'chat.completion',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: '', reasoning: THOUGHT, reasoning_details: CLAUDE_DETAILS, tool_calls: [{ id: 'toolu_weather_0', type: 'function', function: { name: 'weather', arguments: '{"location":"Paris"}' } }] },
      finish_reason: 'tool_calls',
    },
  ],
  usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 },
});

/** Claude's first turn as the client holds it, and the next request's messages handing the tool's result back. */
async function firstTurn(): Promise<Anthropic.MessageParam[]> {
  setup.upstream.clear();
  setup.upstream.enqueue(claudeTurn);
  const answer = await setup.client.messages.create({ model: CLAUDE.slug, max_tokens: 1024, tools: [WEATHER_TOOL], messages: [question] });
  const toolUse = answer.content.find((block) => block.type === 'tool_use') as Anthropic.ToolUseBlock;
  return [question, { role: 'assistant', content: answer.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'Sunny, 21°C' }] }];
}

const assistantOf = (body: SentBody) => body.messages.find((message) => message.role === 'assistant');

describe('OpenRouter reasoning_details after a change of model', () => {
  it('sends Claude\'s items to Claude, and not to Gemini when Claude fails over to it', async () => {
    const messages = await firstTurn();
    setup.upstream.clear();
    setup.upstream.enqueue(reply.error(503), openAiChatStep({ text: 'Sunny, 21°C.', usage: { input: 200, output: 6 } }));
    const request = { model: CLAUDE.slug, max_tokens: 1024, tools: [WEATHER_TOOL], messages, fallbacks: [{ model: GEMINI.slug }] };
    const final = await setup.client.messages.create(request as Anthropic.MessageCreateParamsNonStreaming);

    expect(final.model).toBe(GEMINI.slug);
    const [tried, served] = setup.upstream.requests.map((sent) => sent.body as SentBody);
    // The attempt on Claude carried its own items back; the fallback to Gemini got the reasoning text alone.
    expect(tried?.model).toBe(CLAUDE.upstream);
    expect(assistantOf(tried as SentBody)?.reasoning_details).toEqual(CLAUDE_DETAILS);
    expect(served?.model).toBe(GEMINI.upstream);
    expect(assistantOf(served as SentBody)).toMatchObject({ reasoning: THOUGHT });
    expect(assistantOf(served as SentBody)).not.toHaveProperty('reasoning_details');
    expect(String(setup.upstream.requests[1]?.rawBody)).not.toContain('reasoning_details');
  });

  it('sends Claude\'s items to no other model the next turn is routed to', async () => {
    const messages = await firstTurn();
    setup.upstream.clear();
    setup.upstream.enqueue(openAiChatStep({ text: 'Sunny, 21°C.', usage: { input: 200, output: 6 } }));
    await setup.client.messages.create({ model: GEMINI.slug, max_tokens: 1024, tools: [WEATHER_TOOL], messages });

    const sent = setup.upstream.requests[0]?.body as SentBody;
    expect(sent.model).toBe(GEMINI.upstream);
    expect(assistantOf(sent)).not.toHaveProperty('reasoning_details');
  });
});
