import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serialize } from 'node:v8';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BUNDLED_SPEC_PATH, readSpec, toAsciiJson } from '#src/http/bundled-spec.ts';

// V8's serializer tags a one-byte string '"' (0x22) and a two-byte string 'c' (0x63), after its two-byte header.
const ONE_BYTE_TAG = 0x22;
const isOneByte = (text: string): boolean => serialize(text)[2] === ONE_BYTE_TAG;
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('the bundled spec the server reads', () => {
  it('escapes every character outside printable ASCII, and parses back to the same document', () => {
    const document = { label: 'sk-…1f8e', 'caf\u00e9': ['°', 'é', '\u{1F600}', 'tab\there'], plain: 'X-Generation-Id' };
    const text = toAsciiJson(document);
    expect(text).toMatch(/^[\x20-\x7e\n]*$/);
    expect(text).toContain('sk-\\u20261f8e');
    expect(JSON.parse(text)).toEqual(document);
  });

  it('is the YAML bundle in ASCII JSON', () => {
    const json = readFileSync(BUNDLED_SPEC_PATH, 'utf8');
    expect(json).toMatch(/^[\x20-\x7e\n]*$/);
    const yaml = parse(readFileSync(join(ROOT, 'generated/openapi.yaml'), 'utf8')) as unknown;
    expect(readSpec()).toEqual(yaml);
  });

  it('parses to one-byte strings wherever the characters allow, so a header name the spec shares with the code stays one-byte', () => {
    // A fresh process, as a server starts: the spec read first, then the module that sets X-Generation-Id.
    // With the YAML bundle (two-byte throughout, for its `…`) the header name came out two-byte here.
    const script = [
      "import { serialize } from 'node:v8';",
      "import { readSpec } from '#src/http/bundled-spec.ts';",
      'const spec = readSpec();',
      "const { assignGenerationId } = await import('#src/http/generation-id.ts');",
      'const names = [];',
      'assignGenerationId({}, { locals: {}, setHeader: (name) => names.push(name) }, () => {});',
      'const strings = [];',
      "const walk = (v) => { if (typeof v === 'string') strings.push(v); else if (v && typeof v === 'object') for (const [k, i] of Object.entries(v)) { strings.push(k); walk(i); } };",
      'walk(spec);',
      'const oneByte = (text) => serialize(text)[2] === 0x22;',
      "const twoByte = strings.filter((text) => /^[\\x00-\\xff]*$/.test(text) && !oneByte(text));",
      'console.log(JSON.stringify({ headers: names.map(oneByte), twoByte: twoByte.slice(0, 5), strings: strings.length }));',
    ].join('\n');
    const output = execFileSync(process.execPath, ['--input-type=module', '--eval', script], { cwd: ROOT, encoding: 'utf8' });
    const result = JSON.parse(output) as { headers: boolean[]; twoByte: string[]; strings: number };
    expect(result.strings).toBeGreaterThan(10_000);
    expect(result.twoByte).toEqual([]);
    expect(result.headers).toEqual([true, true]);
    // The check can fail: the same name cut from a two-byte string (as the YAML parser cut the spec's keys) is two-byte.
    expect(isOneByte('X-Generation-Id\u2026'.slice(0, 15))).toBe(false);
  });
});
