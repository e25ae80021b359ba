import { readFileSync } from 'node:fs';

/**
 * Folders under test/fixtures/, one per vendor API as recorded, and `claude-code` for the request bodies the
 * Claude Code CLI sent (see test/fixtures/README.md).
 */
export type FixtureVendor =
  | 'claude-code'
  | 'anthropic'
  | 'openai-chat'
  | 'openai-responses'
  | 'google'
  | 'amazon-bedrock'
  | 'deepseek-chat'
  | 'groq'
  | 'mistral'
  | 'xai';

const fixturesRoot = new URL('../../fixtures/', import.meta.url);

const jsonSuffix = '.json';
const chunksSuffix = '.chunks.txt';

function stripSuffix(name: string): string {
  if (name.endsWith(chunksSuffix)) return name.slice(0, -chunksSuffix.length);
  if (name.endsWith(jsonSuffix)) return name.slice(0, -jsonSuffix.length);
  return name;
}

/** Absolute path of a fixture file, e.g. `fixturePath('anthropic', 'anthropic-text.chunks.txt')`. */
export function fixturePath(vendor: FixtureVendor, fileName: string): string {
  return new URL(`${vendor}/${fileName}`, fixturesRoot).pathname;
}

/** Raw text of a fixture file, name given with its extension. */
export function readFixtureText(vendor: FixtureVendor, fileName: string): string {
  return readFileSync(fixturePath(vendor, fileName), 'utf8');
}

/**
 * The parsed body of a recorded non-streaming response (`<name>.json`).
 * The type parameter is an unchecked assertion for the test's convenience.
 */
export function readFixture<T = unknown>(vendor: FixtureVendor, name: string): T {
  return JSON.parse(readFixtureText(vendor, `${stripSuffix(name)}${jsonSuffix}`)) as T;
}

/**
 * The recorded stream `<name>.chunks.txt` as parsed event payloads, one per line: the JSON of each SSE `data:`
 * line (Anthropic and OpenAI Responses payloads carry the SSE event name in `type`), or for Bedrock one
 * `{ <eventType>: payload }` object per event-stream message.
 */
export function readChunks<T = unknown>(vendor: FixtureVendor, name: string): T[] {
  return readFixtureText(vendor, `${stripSuffix(name)}${chunksSuffix}`)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}
