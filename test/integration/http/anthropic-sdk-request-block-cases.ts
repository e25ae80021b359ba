/**
 * More rows of the Anthropic SDK 1.14 request audit (anthropic-sdk-request-cases.ts): the content blocks,
 * sources and tool types of today's Messages API that the spec lets through to Anthropic-format upstreams,
 * with what an OpenAI Chat upstream is sent for each or the 400 naming what it cannot express. Typed with the
 * SDK's beta params, so every row is a request the SDK can build.
 */
import type { CaseParams, RequestCase, Translated } from '#test/integration/http/anthropic-sdk-request-cases.ts';

const PNG = 'iVBORw0KGgo=';
const PDF = 'JVBERi0xLjQK';
const weather = { name: 'get_weather', description: 'Weather of a city', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } };
const user = (text: string) => ({ role: 'user' as const, content: text });
const toolTurn = [user('Weather in Paris?'), { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } }] }];
const openAiToolTurn = [
  { role: 'user', content: 'Weather in Paris?' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_01', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
];
const refuses = (what: string): Translated => ({ refuses: `${what} is not supported by OpenAI Chat Completions` });
/** Anthropic's web search on a model with no Anthropic-format endpoint, in a gateway without a search backend. */
const noSearchBackend = (type: string): Translated => ({
  refuses: `tools[0].type: ${type} cannot be served for audit/gpt: none of its endpoints is Anthropic-format (which runs the tool itself) and this gateway has no search backend configured (server_tools.web_search) to run it`,
});
/** An assistant turn passing back `blocks`, between two user turns. */
const passedBack = (blocks: Extract<NonNullable<CaseParams['messages']>[number], { role: 'assistant' }>['content']): CaseParams => ({
  messages: [user('Hi'), { role: 'assistant', content: blocks }, user('Go')],
});
const searchResult = {
  type: 'search_result' as const,
  source: 'https://example.com/paris',
  title: 'Paris',
  content: [{ type: 'text' as const, text: 'Paris is the capital of France.' }],
  citations: { enabled: true },
  cache_control: { type: 'ephemeral' as const, ttl: '1h' as const },
};
/** What a translated vendor reads for `searchResult`. */
const searchResultText = 'Search result: Paris\nSource: https://example.com/paris\n\nParis is the capital of France.';
const citations = [
  { type: 'char_location' as const, cited_text: 'Paris', document_index: 0, document_title: null, start_char_index: 0, end_char_index: 5 },
  { type: 'page_location' as const, cited_text: 'Paris', document_index: 0, document_title: 'Atlas', start_page_number: 1, end_page_number: 2 },
  { type: 'content_block_location' as const, cited_text: 'Paris', document_index: 0, document_title: null, start_block_index: 0, end_block_index: 1 },
  { type: 'web_search_result_location' as const, cited_text: 'Paris', encrypted_index: 'enc_01', title: null, url: 'https://example.com' },
  { type: 'search_result_location' as const, cited_text: 'Paris', search_result_index: 0, source: 'https://example.com/paris', title: 'Paris', start_block_index: 0, end_block_index: 0 },
];
type Tool = NonNullable<CaseParams['tools']>[number];
/** An Anthropic tool, forwarded to Anthropic and refused by name elsewhere; `stable` when the non-beta params type it. */
const anthropicTool = (tool: Tool & { type: string }, stable: boolean): RequestCase => ({
  params: { tools: [tool] },
  translated: refuses(`tool type ${tool.type} (an Anthropic tool)`),
  stable,
});

export const BLOCK_AND_TOOL_CASES: Record<string, RequestCase> = {
  'a search_result block': {
    params: { messages: [{ role: 'user', content: [searchResult, { type: 'text', text: 'Capital?' }] }] },
    translated: { sends: { messages: [{ role: 'user', content: [{ type: 'text', text: searchResultText }, { type: 'text', text: 'Capital?' }] }] } },
    stable: true,
  },
  'a search_result in a tool result': {
    params: { tools: [weather], messages: [...toolTurn, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [searchResult] }] }] },
    translated: { sends: { messages: [...openAiToolTurn, { role: 'tool', tool_call_id: 'toolu_01', content: searchResultText }] } },
    stable: true,
  },
  'text citations passed back': {
    params: passedBack([{ type: 'text', text: 'Paris.', citations }]),
    translated: { sends: { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Paris.' }, { role: 'user', content: 'Go' }] } },
    stable: true,
  },
  'a plain-text document with citations, context and a title': {
    params: { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Paris is big.' }, title: 'Atlas', context: 'An atlas', citations: { enabled: true } }] }] },
    translated: { sends: { messages: [{ role: 'user', content: 'Atlas\n\nParis is big.' }] } },
    stable: true,
  },
  'a document with a content source': {
    params: { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'Chunk one' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }] } }] }] },
    translated: { sends: { messages: [{ role: 'user', content: [{ type: 'text', text: 'Chunk one' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }] }] } },
    stable: true,
  },
  'a document with a string content source, a title and context': {
    params: { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'content', content: 'Paris is big.' }, title: 'Atlas', context: 'An atlas', citations: { enabled: true } }] }] },
    translated: { sends: { messages: [{ role: 'user', content: 'Atlas\n\nAn atlas\n\nParis is big.' }] } },
    stable: true,
  },
  'a document with a file source': { params: { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'file', file_id: 'file_011' }, citations: null, title: null, context: null }] }] }, translated: refuses('document source type file') },
  'an image with a file source': { params: { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'file_012' } }] }] }, translated: refuses('image source type file') },
  'a PDF by URL': { params: { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'url', url: 'https://example.com/atlas.pdf' } }] }] }, translated: refuses('PDF URL sources (send the PDF as base64)'), stable: true },
  // Anthropic's API types the URL as a plain string; the WHATWG parser the vendor packages use reads this one.
  'an image URL with a space': {
    params: { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/my chart.png' } }, { type: 'text', text: 'What is it?' }] }] },
    translated: { sends: { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/my%20chart.png' } }, { type: 'text', text: 'What is it?' }] }] } },
    stable: true,
  },
  // Anthropic judges it for itself; a translated vendor cannot be given it (it was a 500).
  'an image URL no parser reads': {
    params: { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'http://[' } }, { type: 'text', text: 'What is it?' }] }] },
    translated: { refuses: 'messages[0].content[0].source.url is not a valid URL' },
    stable: true,
  },
  'a container_upload block': {
    params: { messages: [{ role: 'user', content: [{ type: 'container_upload', file_id: 'file_013' }, { type: 'text', text: 'Plot it.' }] }] },
    translated: refuses('container_upload blocks in user messages (messages[0].content[0])'),
    stable: true,
  },
  'mcp_tool_use and mcp_tool_result passed back': {
    params: passedBack([
      { type: 'mcp_tool_use', id: 'mcptoolu_01', name: 'lookup', server_name: 'atlas', input: { city: 'Paris' } },
      { type: 'mcp_tool_result', tool_use_id: 'mcptoolu_01', content: [{ type: 'text', text: 'Found.' }], is_error: false },
      { type: 'text', text: 'Found it.' },
    ]),
    translated: refuses('mcp_tool_use blocks in assistant messages (messages[1].content[0])'),
  },
  'server tool calls and results passed back': {
    params: passedBack([
      { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_fetch', input: { url: 'https://example.com' } },
      { type: 'web_fetch_tool_result', tool_use_id: 'srvtoolu_01', content: { type: 'web_fetch_tool_result_error', error_code: 'url_not_accessible' } },
      { type: 'server_tool_use', id: 'srvtoolu_02', name: 'bash_code_execution', input: { command: 'ls' } },
      { type: 'bash_code_execution_tool_result', tool_use_id: 'srvtoolu_02', content: { type: 'bash_code_execution_result', content: [], return_code: 0, stderr: '', stdout: 'a.txt' } },
      { type: 'server_tool_use', id: 'srvtoolu_03', name: 'tool_search_tool_regex', input: { pattern: 'weather' } },
      { type: 'tool_search_tool_result', tool_use_id: 'srvtoolu_03', content: { type: 'tool_search_tool_search_result', tool_references: [{ type: 'tool_reference', tool_name: 'get_weather' }] } },
    ]),
    translated: refuses('server_tool_use blocks in assistant messages (messages[1].content[0])'),
    stable: true,
  },
  'a compaction block passed back': { params: passedBack([{ type: 'compaction', content: 'Earlier: the user asked about Paris.', encrypted_content: null }]), translated: refuses('compaction blocks in assistant messages (messages[1].content[0])') },
  // Its marker, as any nested block's, is the tool result's breakpoint (it was a 400 naming the cache_control).
  'a tool_reference with a cache marker': {
    params: { tools: [weather], messages: [...toolTurn, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'tool_reference', tool_name: 'get_weather', cache_control: { type: 'ephemeral' } }] }] }] },
    translated: { sends: { messages: [...openAiToolTurn, { role: 'tool', tool_call_id: 'toolu_01', content: 'Tool "get_weather" is now available to call.' }] } },
  },
  bash_20250124: anthropicTool({ type: 'bash_20250124', name: 'bash' }, true),
  text_editor_20250728: anthropicTool({ type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: 10_000 }, true),
  code_execution_20250825: anthropicTool({ type: 'code_execution_20250825', name: 'code_execution' }, true),
  tool_search_tool_regex_20251119: anthropicTool({ type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' }, true),
  web_fetch_20250910: anthropicTool({ type: 'web_fetch_20250910', name: 'web_fetch', citations: { enabled: true }, max_content_tokens: 5000 }, true),
  computer_20250124: anthropicTool({ type: 'computer_20250124', name: 'computer', display_width_px: 1280, display_height_px: 800, display_number: null }, false),
  // The earlier versions of each Anthropic tool the SDK still types.
  bash_20241022: anthropicTool({ type: 'bash_20241022', name: 'bash' }, false),
  computer_20241022: anthropicTool({ type: 'computer_20241022', name: 'computer', display_width_px: 1024, display_height_px: 768 }, false),
  text_editor_20241022: anthropicTool({ type: 'text_editor_20241022', name: 'str_replace_editor' }, false),
  text_editor_20250124: anthropicTool({ type: 'text_editor_20250124', name: 'str_replace_editor' }, true),
  text_editor_20250429: anthropicTool({ type: 'text_editor_20250429', name: 'str_replace_based_edit_tool' }, true),
  code_execution_20250522: anthropicTool({ type: 'code_execution_20250522', name: 'code_execution' }, true),
  code_execution_20260120: anthropicTool({ type: 'code_execution_20260120', name: 'code_execution' }, true),
  web_fetch_20260209: anthropicTool({ type: 'web_fetch_20260209', name: 'web_fetch' }, true),
  tool_search_tool_bm25_20251119: anthropicTool({ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' }, true),
  tool_search_tool_regex: anthropicTool({ type: 'tool_search_tool_regex', name: 'tool_search_tool_regex' }, true),
  web_search_20250305: {
    params: { tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3, allowed_domains: ['example.com'], user_location: { type: 'approximate', city: 'Paris', country: 'FR', region: null, timezone: 'Europe/Paris' } }] },
    translated: noSearchBackend('web_search_20250305'),
    stable: true,
  },
  web_search_20260209: { params: { tools: [{ type: 'web_search_20260209', name: 'web_search' }] }, translated: noSearchBackend('web_search_20260209'), stable: true },
  'thinking and redacted_thinking passed back (another vendor cannot verify them)': {
    params: passedBack([{ type: 'thinking', thinking: 'Let me see.', signature: 'EqQBCgIYAhIM' }, { type: 'redacted_thinking', data: 'EmwKAhgBEgy3' }, { type: 'text', text: 'Hello' }]),
    translated: { sends: { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello' }, { role: 'user', content: 'Go' }] } },
    stable: true,
  },
  'web search, advisor, code execution and text editor results passed back': {
    params: passedBack([
      { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'Paris' } },
      { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_01', content: [{ type: 'web_search_result', url: 'https://example.com', title: 'Paris', encrypted_content: 'ZW5j', page_age: null }] },
      { type: 'server_tool_use', id: 'srvtoolu_02', name: 'advisor', input: {} },
      { type: 'advisor_tool_result', tool_use_id: 'srvtoolu_02', content: { type: 'advisor_result', text: 'Check the units.' } },
      { type: 'server_tool_use', id: 'srvtoolu_03', name: 'code_execution', input: { code: 'print(1)' } },
      { type: 'code_execution_tool_result', tool_use_id: 'srvtoolu_03', content: { type: 'encrypted_code_execution_result', encrypted_stdout: 'ZW5j', stderr: '', return_code: 0, content: [] } },
      { type: 'server_tool_use', id: 'srvtoolu_04', name: 'text_editor_code_execution', input: { command: 'view', path: 'a.py' } },
      { type: 'text_editor_code_execution_tool_result', tool_use_id: 'srvtoolu_04', content: { type: 'text_editor_code_execution_view_result', content: 'print(1)', file_type: 'text', num_lines: null, start_line: null, total_lines: null } },
      { type: 'text', text: 'Done.' },
    ]),
    translated: refuses('server_tool_use blocks in assistant messages (messages[1].content[0])'),
  },
  'a tool_use called from code passed back': {
    params: { tools: [weather], messages: [user('Weather in Paris?'), { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' }, caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_00' } }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'Sunny' }] }] },
    translated: { sends: { messages: [...openAiToolTurn, { role: 'tool', tool_call_id: 'toolu_01', content: 'Sunny' }] } },
    stable: true,
  },
  'a PDF as base64 with a cache marker': {
    params: { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF }, title: 'Atlas', cache_control: { type: 'ephemeral' } }] }] },
    translated: { sends: { messages: [{ role: 'user', content: [{ type: 'file', file: { filename: 'Atlas', file_data: `data:application/pdf;base64,${PDF}` } }] }] } },
    stable: true,
  },
  'an image by URL with a 1h cache marker': {
    params: { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' }, cache_control: { type: 'ephemeral', ttl: '1h' } }] }] },
    translated: { sends: { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }] } },
    stable: true,
  },
  'a tool result with text and an image': {
    params: { tools: [weather], messages: [...toolTurn, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: 'Sunny' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }] }] }] },
    translated: {
      sends: {
        messages: [
          ...openAiToolTurn,
          { role: 'tool', tool_call_id: 'toolu_01', content: 'Sunny\n[The tool returned an image, attached to the next user message.]' },
          { role: 'user', content: [{ type: 'text', text: 'Attached: what the tool calls above returned as files.' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }] },
        ],
      },
    },
    stable: true,
  },
  'a tool result without content': {
    params: { tools: [weather], messages: [...toolTurn, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01' }] }] },
    translated: { sends: { messages: [...openAiToolTurn, { role: 'tool', tool_call_id: 'toolu_01', content: '' }] } },
    stable: true,
  },
};
