import { describe, expect, it } from 'vitest';
import { mcpModelToolNames, mcpResultTexts } from '#src/server-tools/mcp/mcp-tool.ts';
import { mcpToolsFromList } from '#src/server-tools/resolve-gateway-tools.ts';

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

describe('model-facing names of MCP tools', () => {
  it.each([
    ['mcp__docs', ['search'], ['mcp__docs__search']],
    ['mcp__docs', ['files.read', 'files/write', 'get user'], ['mcp__docs__files_read', 'mcp__docs__files_write', 'mcp__docs__get_user']],
    ['kb', ['Search-Pages_v2'], ['kb__Search-Pages_v2']],
  ])('%s with %j', (prefix, tools, names) => {
    expect([...mcpModelToolNames(prefix, tools).keys()]).toEqual(names);
  });

  it('names that collide after replacement stay distinct, each mapped to its own tool', () => {
    const names = mcpModelToolNames('mcp__docs', ['a.b', 'a_b', 'a/b']);
    expect([...names.values()]).toEqual(['a.b', 'a_b', 'a/b']);
    expect(new Set(names.keys()).size).toBe(3);
    for (const name of names.keys()) expect(name).toMatch(NAME);
  });

  it.each([
    ['a tool named as another\'s hashed name, listed first', ['a_b_648fa9b3', 'a.b', 'a_b']],
    ['a tool named as another\'s hashed name, listed last', ['a.b', 'a_b', 'a_b_648fa9b3']],
  ])('a shortened name never takes another tool\'s: %s', (_case, tools) => {
    const names = mcpModelToolNames('mcp__docs', tools);
    expect([...names.values()].sort()).toEqual([...tools].sort());
    expect(names.get('mcp__docs__a_b_648fa9b3')).toBe('a_b_648fa9b3');
    for (const name of names.keys()) expect(name.startsWith('mcp__docs__')).toBe(true);
  });

  it('a shortened name keeps a 40-character prefix whole', () => {
    const prefix = 'p'.repeat(40);
    const [name] = mcpModelToolNames(prefix, [`tool_${'x'.repeat(40)}`]).keys();
    expect(name).toMatch(NAME);
    expect(name?.startsWith(`${prefix}__tool_xxxxxxxx_`)).toBe(true);
  });

  it('long names are cut to 64 characters with a stable hash', () => {
    const long = `summarize_${'very_'.repeat(20)}long_document`;
    const [first] = mcpModelToolNames('mcp__knowledge-base', [long]).keys();
    expect(first).toMatch(NAME);
    expect(first).toHaveLength(64);
    expect(first?.startsWith('mcp__knowledge-base__summarize_very_very')).toBe(true);
    expect(mcpModelToolNames('mcp__knowledge-base', [long]).keys().next().value).toBe(first);
  });
});

describe('an MCP tool result as text', () => {
  it.each([
    [[{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }], undefined, ['one', 'two']],
    [[{ type: 'image', mimeType: 'image/png' }], undefined, ['[image image/png omitted]']],
    [[{ type: 'resource', resource: { uri: 'file:///a.txt', text: 'inline text' } }], undefined, ['inline text']],
    [[{ type: 'resource_link', uri: 'file:///b.txt' }], undefined, ['[resource link file:///b.txt]']],
    [[], { total: 3 }, ['{"total":3}']],
    [[], undefined, ['(no output)']],
  ])('%j', (content, structured, texts) => {
    expect(mcpResultTexts(content, structured)).toEqual(texts);
  });

  it('is cut once it passes the server\'s max_output_chars', () => {
    expect(mcpResultTexts([{ type: 'text', text: 'abcdef' }, { type: 'text', text: 'ghijkl' }, { type: 'text', text: 'never' }], undefined, 8)).toEqual([
      'abcdef',
      'gh\n\n[Output truncated at 8 characters.]',
    ]);
  });
});

describe('the tools one gateway:mcp entry offers', () => {
  const list = [
    { name: 'search', description: 'Searches the docs.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
    { name: 'odd', inputSchema: { type: 'string' } },
  ];

  it('every listed tool, with a description and an object schema even when the server gives none', () => {
    const warnings: string[] = [];
    const tools = mcpToolsFromList({ index: 2, server: 'docs', prefix: 'mcp__docs', allowedTools: null, cacheControl: { type: 'ephemeral' } }, list, warnings);
    expect(tools).toEqual([
      { kind: 'mcp', modelName: 'mcp__docs__search', description: 'Searches the docs.', inputSchema: list[0]?.inputSchema, cacheControl: { type: 'ephemeral' }, settings: { server: 'docs', toolName: 'search' } },
      { kind: 'mcp', modelName: 'mcp__docs__odd', description: 'The tool odd of the MCP server docs.', inputSchema: { type: 'object', properties: {} }, cacheControl: { type: 'ephemeral' }, settings: { server: 'docs', toolName: 'odd' } },
    ]);
    expect(warnings).toEqual([]);
  });
});
