/**
 * The gateway's values for Anthropic's opaque fields: `encrypted_content` of a web search result (which carries
 * the snippet the model read, so a result passed back on a later turn gives the model the same text) and
 * `encrypted_index` of a citation. They are not encrypted (nothing in them is secret), only marked with a
 * prefix that tells them from Anthropic's own, which the gateway must never try to read.
 */

const PREFIX = 'sbgw1.';

/** Encodes a value as the gateway's opaque string. */
export function toOpaque(value: unknown): string {
  return `${PREFIX}${Buffer.from(JSON.stringify(value), 'utf8').toString('base64url')}`;
}

/** Whether an opaque string is the gateway's (rather than Anthropic's). */
export function isGatewayOpaque(text: unknown): text is string {
  return typeof text === 'string' && text.startsWith(PREFIX);
}

/** Decodes the gateway's opaque string; undefined when it is not one or is damaged. */
export function fromOpaque(text: unknown): unknown {
  if (!isGatewayOpaque(text)) return undefined;
  try {
    return JSON.parse(Buffer.from(text.slice(PREFIX.length), 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
