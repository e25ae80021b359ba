/**
 * A tiny HTTP caller for the management operations in tests: plain fetch to the gateway on 127.0.0.1, the
 * bearer key and JSON body given per call, status and parsed body back.
 */

/** A response: its status and its parsed JSON body (undefined when there is none). */
export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
}

/** Calls `method path` on the gateway's `/api/v1` base URL with `key` as bearer token. */
export async function callApi<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string | undefined; body?: unknown; rawBody?: string } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = {};
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}
