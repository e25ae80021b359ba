/**
 * The typed client, generated from the spec: every path, parameter, body and response is typed from
 * generated/api.d.ts. `baseUrl` includes the `/api/v1` prefix, e.g. `http://127.0.0.1:8787/api/v1`.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '#src/api-types.ts';

/** A typed Switchboard client. */
export type SwitchboardClient = Client<paths>;

/** Creates a typed client authenticating with a gateway API key (inference or management). */
export function createSwitchboardClient(options: { baseUrl: string; apiKey?: string; fetch?: typeof globalThis.fetch }): SwitchboardClient {
  return createClient<paths>({
    baseUrl: options.baseUrl,
    ...(options.apiKey ? { headers: { Authorization: `Bearer ${options.apiKey}` } } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
