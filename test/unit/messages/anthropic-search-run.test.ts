/**
 * Which attempt of a tool loop takes the request as sent (its answer passed through) and which one the loop
 * serves: Anthropic's web search converted for a plan's translated endpoints is the only gateway tool that
 * an Anthropic-format attempt's first step can leave to the upstream.
 */
import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { searchRunOf } from '#src/messages/anthropic-search-run.ts';
import type { ApiFamily } from '#src/providers/provider-adapter.ts';
import { withAnthropicSearchAsGateway } from '#src/server-tools/web-search/anthropic-web-search.ts';

type Tools = NonNullable<MessageRequest['tools']>;
const SEARCH = { type: 'web_search_20250305', name: 'web_search', max_uses: 2 } as unknown as Tools[number];
const SEARCH_2026 = { type: 'web_search_20260209', name: 'web_search' } as unknown as Tools[number];
const CLIENT_TOOL = { name: 'lookup', input_schema: { type: 'object' } } as unknown as Tools[number];
const FETCH = { type: 'gateway:web_fetch' } as unknown as Tools[number];
const GATEWAY_SEARCH = { type: 'gateway:web_search' } as unknown as Tools[number];

const converted = (...tools: Tools) => withAnthropicSearchAsGateway(tools);

const CASES: { name: string; family: ApiFamily; tools: Tools; firstStep: boolean; expected: 'as-sent' | 'loop' }[] = [
  { name: 'Anthropic-format, first step, the converted search only', family: 'anthropic', tools: converted(SEARCH), firstStep: true, expected: 'as-sent' },
  { name: 'the 2026 version of the tool', family: 'anthropic', tools: converted(SEARCH_2026), firstStep: true, expected: 'as-sent' },
  { name: 'beside client tools', family: 'anthropic', tools: converted(CLIENT_TOOL, SEARCH), firstStep: true, expected: 'as-sent' },
  { name: 'a translated attempt (OpenAI)', family: 'openai-chat', tools: converted(SEARCH), firstStep: true, expected: 'loop' },
  { name: 'a translated attempt (Bedrock)', family: 'bedrock', tools: converted(SEARCH), firstStep: true, expected: 'loop' },
  { name: 'a later step: the conversation holds the gateway turns', family: 'anthropic', tools: converted(SEARCH), firstStep: false, expected: 'loop' },
  { name: "beside a gateway tool of the client's (web_fetch)", family: 'anthropic', tools: converted(SEARCH, FETCH), firstStep: true, expected: 'loop' },
  { name: "the gateway's own web_search, nothing converted", family: 'anthropic', tools: [GATEWAY_SEARCH], firstStep: true, expected: 'loop' },
  { name: 'no gateway tool at all', family: 'anthropic', tools: [CLIENT_TOOL], firstStep: true, expected: 'loop' },
  { name: 'no tools', family: 'anthropic', tools: [], firstStep: true, expected: 'loop' },
];

describe('searchRunOf', () => {
  it.each(CASES)('$name: $expected', ({ family, tools, firstStep, expected }) => {
    expect(searchRunOf(family, tools, firstStep)).toBe(expected);
  });
});
