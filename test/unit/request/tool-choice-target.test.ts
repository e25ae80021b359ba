import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { checkToolChoiceTarget } from '#src/request/tool-choice-target.ts';

type Request = Pick<MessageRequest, 'tools' | 'tool_choice'> & { mcp_servers?: unknown };
const forcing = (name: string, tools?: unknown[], extra: Record<string, unknown> = {}): Request => ({ tool_choice: { type: 'tool', name }, ...(tools ? { tools: tools as MessageRequest['tools'] } : {}), ...extra });
const custom = (name: string) => ({ name, input_schema: { type: 'object' } });
const message = (request: Request): string | undefined => {
  try {
    checkToolChoiceTarget(request as Pick<MessageRequest, 'tools' | 'tool_choice'>);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
};

describe('checkToolChoiceTarget', () => {
  it.each<[string, Request]>([
    ['no tool_choice', {}],
    ['auto and none with no tools', { tool_choice: { type: 'none' } }],
    ['any with tools', { tool_choice: { type: 'any' }, tools: [custom('a')] as unknown as MessageRequest['tools'] }],
    ["any with Anthropic's mcp_servers", { tool_choice: { type: 'any' }, mcp_servers: [{ type: 'url', url: 'https://mcp.example', name: 'docs' }] }],
    ['a client tool by its name', forcing('a', [custom('b'), custom('a')])],
    ["an Anthropic server tool's name", forcing('web_search', [{ type: 'web_search_20250305', name: 'web_search' }])],
    ["a gateway tool's default name", forcing('datetime', [{ type: 'gateway:datetime' }])],
    ["a gateway tool's own name", forcing('clock', [{ type: 'gateway:datetime', name: 'clock' }])],
    ["a gateway MCP server's tool under its default prefix", forcing('mcp__docs__search', [{ type: 'gateway:mcp', server: 'docs' }])],
    ["a gateway MCP server's tool under its own prefix", forcing('kb__search', [{ type: 'gateway:mcp', server: 'docs', name: 'kb' }])],
    ["a tool entry without a name of a type the gateway does not know (Anthropic's mcp_toolset)", forcing('search', [{ type: 'mcp_toolset', mcp_server_name: 'docs' }])],
    ["Anthropic's mcp_servers, whose tools only Anthropic lists", forcing('search', [], { mcp_servers: [{ type: 'url', url: 'https://mcp.example', name: 'docs' }] })],
  ])('accepts %s', (_label, request) => {
    expect(message(request)).toBeUndefined();
  });

  it.each<[string, Request, string]>([
    ['no tools', forcing('a'), 'no tool of the request is named "a" (the request offers no tools)'],
    ['an empty tools list', forcing('a', []), 'no tool of the request is named "a" (the request offers no tools)'],
    ['other client tools', forcing('c', [custom('a'), custom('b')]), 'no tool of the request is named "c" (the request\'s tools are a, b)'],
    ['a case that differs', forcing('A', [custom('a')]), 'no tool of the request is named "A" (the request\'s tools are a)'],
    ["a gateway tool's default name once it is renamed", forcing('datetime', [{ type: 'gateway:datetime', name: 'clock' }]), 'no tool of the request is named "datetime" (the request\'s tools are clock)'],
    ['another MCP prefix', forcing('mcp__wiki__search', [{ type: 'gateway:mcp', server: 'docs' }]), 'no tool of the request is named "mcp__wiki__search" (the request\'s tools are mcp__docs__<tool>)'],
    [
      'many tools, listed up to ten',
      forcing('z', Array.from({ length: 12 }, (_, index) => custom(`t${index}`))),
      'no tool of the request is named "z" (the request\'s tools are t0, t1, t2, t3, t4, t5, t6, t7, t8, t9 and 2 more)',
    ],
  ])('refuses %s', (_label, request, problem) => {
    expect(message(request)).toBe(`Invalid request parameters: tool_choice.name: ${problem}`);
  });

  it.each<[string, Request]>([
    ['no tools', { tool_choice: { type: 'any' } }],
    ['an empty tools list', { tool_choice: { type: 'any' }, tools: [] }],
  ])('refuses any with %s', (_label, request) => {
    expect(message(request)).toBe('Invalid request parameters: tool_choice.type is any, which forces a tool call, but the request offers no tools (add tools, or leave tool_choice out)');
  });
});
