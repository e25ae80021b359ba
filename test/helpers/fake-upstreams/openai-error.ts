import type { VendorError } from './wire-format.ts';

/**
 * OpenAI's error `type` and `code` per HTTP status, shared by Chat Completions, Responses and the
 * OpenAI-compatible vendors that copy the shape.
 * @see https://platform.openai.com/docs/guides/error-codes
 */
const openAiErrors: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: "Invalid value for 'messages'." },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory', message: 'Country, region, or territory not supported' },
  404: { type: 'invalid_request_error', code: 'model_not_found', message: 'The model does not exist or you do not have access to it.' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests. Please try again in 1s.' },
  500: { type: 'server_error', code: null, message: 'The server had an error while processing your request. Sorry about that!' },
  503: { type: 'server_error', code: null, message: 'The engine is currently overloaded, please try again later' },
  // Groq's own status: its flex tier at capacity (console.groq.com/docs/flex-processing).
  498: { type: 'capacity_exceeded', code: 'capacity_exceeded', message: 'Flex tier capacity exceeded. Please try again later.' },
};

/** The `{ error: { message, type, param, code } }` object OpenAI answers for a status. */
export function openAiErrorObject(
  status: number,
  message?: string,
  code?: string,
): { message: string; type: string; param: null; code: string | null } {
  const known = openAiErrors[status] ?? { type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null, message: 'Error' };
  return { message: message ?? known.message, type: known.type, param: null, code: code ?? known.code };
}

/** OpenAI's HTTP error body and headers for a status. */
export function openAiError(status: number, message?: string, code?: string): VendorError {
  const headers: Record<string, string> = { 'x-request-id': `req_${Math.random().toString(16).slice(2, 18)}` };
  if (status === 429) headers['retry-after'] = '1';
  return { body: { error: openAiErrorObject(status, message, code) }, headers };
}

/**
 * OpenAI's 400 for a function whose parameters are an object schema without `properties` (a bare
 * `{"type": "object"}`), which Chat Completions and Responses refuse whatever `strict` says; undefined when
 * every function's schema is accepted. `parametersOf` reads a tool's schema in the API's own shape.
 */
export function refusedFunctionSchema(body: unknown, parametersOf: (tool: Record<string, unknown>) => { name: string; parameters: unknown; param: string } | undefined): { status: number; body: unknown } | undefined {
  const tools = (body as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return undefined;
  for (const [index, tool] of tools.entries()) {
    const read = parametersOf(tool as Record<string, unknown>);
    const schema = read?.parameters as { type?: unknown; properties?: unknown } | undefined;
    if (!read || schema?.type !== 'object' || schema.properties !== undefined) continue;
    const message = `Invalid schema for function '${read.name}': In context=(), object schema missing properties.`;
    return { status: 400, body: { error: { message, type: 'invalid_request_error', param: read.param.replace('#', String(index)), code: 'invalid_function_parameters' } } };
  }
  return undefined;
}

/**
 * OpenAI's 400 for a function name longer than 64 characters or with a character outside `[a-zA-Z0-9_-]`
 * (what users of long MCP tool names meet, e.g. danny-avila/LibreChat#7435, mastra-ai/mastra#6302); undefined
 * when every name is accepted. `nameOf` reads a function tool's name and its parameter path (`#` for the index).
 */
export function refusedFunctionName(body: unknown, nameOf: (tool: Record<string, unknown>) => { name: string; param: string } | undefined): { status: number; body: unknown } | undefined {
  const tools = (body as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return undefined;
  for (const [index, tool] of tools.entries()) {
    const read = nameOf(tool as Record<string, unknown>);
    if (!read) continue;
    const param = read.param.replace('#', String(index));
    if (read.name.length > 64) {
      const message = `Invalid '${param}': string too long. Expected a string with maximum length 64, but got a string with length ${read.name.length} instead.`;
      return { status: 400, body: { error: { message, type: 'invalid_request_error', param, code: 'string_above_max_length' } } };
    }
    if (!/^[a-zA-Z0-9_-]+$/.test(read.name)) {
      const message = `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`;
      return { status: 400, body: { error: { message, type: 'invalid_request_error', param, code: 'invalid_value' } } };
    }
  }
  return undefined;
}
