/** fitsOpenAiStrictMode: which structured-output schemas OpenAI's strict mode takes. */
import { describe, expect, it } from 'vitest';
import { fitsOpenAiStrictMode } from '#src/providers/ai-sdk/openai-strict-schema.ts';

const closed = (properties: Record<string, unknown>, required = Object.keys(properties)) => ({ type: 'object', properties, required, additionalProperties: false });

describe('fitsOpenAiStrictMode', () => {
  it.each([
    ['a closed object with every property required', closed({ a: { type: 'string' } }), true],
    ['an empty closed object', closed({}), true],
    ['a non-object schema', { type: 'string' }, true],
    ['an optional property', closed({ a: { type: 'string' }, b: { type: 'string' } }, ['a']), false],
    ['no required list', { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }, false],
    ['an open object', { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, false],
    ['additionalProperties true', { ...closed({ a: { type: 'string' } }), additionalProperties: true }, false],
    ['an open object nested in a property', closed({ p: { type: 'object', properties: {}, required: [] } }), false],
    ['an open object in array items', closed({ list: { type: 'array', items: { type: 'object', properties: { x: { type: 'number' } } } } }), false],
    ['an optional property in an anyOf variant', closed({ v: { anyOf: [closed({ x: { type: 'number' }, y: { type: 'number' } }, ['x']), { type: 'null' }] } }), false],
    ['an open object in $defs', { ...closed({ r: { $ref: '#/$defs/R' } }), $defs: { R: { type: 'object', properties: { x: { type: 'number' } } } } }, false],
    ['closed objects in $defs and anyOf', { ...closed({ r: { anyOf: [{ $ref: '#/$defs/R' }, { type: 'null' }] } }), $defs: { R: closed({ x: { type: 'number' } }) } }, true],
    ['a nullable object type', { type: ['object', 'null'], properties: { a: { type: 'string' } }, required: [] , additionalProperties: false }, false],
  ])('%s: %j', (_name, schema, expected) => {
    expect(fitsOpenAiStrictMode(schema)).toBe(expected);
  });
});
