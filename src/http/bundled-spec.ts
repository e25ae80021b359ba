/**
 * The bundled spec as the server reads it: generated/openapi.json, the same document as generated/openapi.yaml
 * (both come from `npm run generate`), written in ASCII with every other character as a `\u` escape.
 *
 * Why JSON and why ASCII: V8 keeps a string whose characters all fit in one byte as a one-byte string, unless
 * it was cut from a two-byte string. The YAML bundle holds a few characters above U+00FF (`…` in masked key
 * examples), so read as YAML every key of the document came out two-byte; and since V8 keeps one copy of each
 * property-name string, the `X-Generation-Id` literal of src/http/generation-id.ts resolved to the spec's
 * two-byte copy. Every `/messages` answer's head, and with it the body written in the same call, then left
 * as a two-byte string that node encodes to UTF-8 character by character (about 17 k instructions a JSON
 * answer under callgrind). An ASCII source parses to one-byte strings, keys included.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The bundled spec produced by `npm run generate`, in JSON. */
export const BUNDLED_SPEC_PATH = fileURLToPath(new URL('../../generated/openapi.json', import.meta.url));

/** A fresh parse of a spec file in JSON (each caller may change its copy: the validator does). */
export function readSpec(specPath: string = BUNDLED_SPEC_PATH): Record<string, unknown> {
  return JSON.parse(readFileSync(specPath, 'latin1')) as Record<string, unknown>;
}

/** The document as ASCII JSON: characters outside printable ASCII become `\u` escapes (see the file's head). */
export function toAsciiJson(document: unknown): string {
  return `${JSON.stringify(document, null, 1).replace(/[\u007f-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}
