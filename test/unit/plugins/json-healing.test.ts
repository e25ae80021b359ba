import { describe, expect, it } from 'vitest';
import { healJson, jsonCandidates, requestedSchema, schemaCheck } from '#src/plugins/json-healing.ts';

const check = schemaCheck({ type: 'object', properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }, required: ['name'] });

describe('healJson', () => {
  it.each<[string, string, Record<string, unknown>]>([
    ['cut off in an array', '{"name": "Ada", "tags": ["math", "eng', { name: 'Ada', tags: ['math', 'eng'] }],
    ['cut off after a key', '{"name": "Ada", "tags":', { name: 'Ada', tags: null }],
    ['trailing commas', '{"name": "Ada", "tags": ["math",],}', { name: 'Ada', tags: ['math'] }],
    ['fenced in markdown', '```json\n{"name": "Ada"}\n```', { name: 'Ada' }],
    ['fenced, with prose around', 'Sure! Here it is:\n```\n{"name": "Ada"}\n```\nHope it helps.', { name: 'Ada' }],
    ['prose around bare JSON', 'The answer is {"name": "Ada"} as requested.', { name: 'Ada' }],
    ['single quotes', "{'name': 'Ada', 'tags': ['math']}", { name: 'Ada', tags: ['math'] }],
    ['unquoted keys', '{name: "Ada"}', { name: 'Ada' }],
  ])('heals output %s', (_case, text, expected) => {
    const outcome = healJson(text, check);
    // A cut-off key with no value is closed as null, which the schema then refuses.
    if ('tags' in expected && expected.tags === null) {
      expect(outcome.status).toBe('unhealable');
      return;
    }
    expect(outcome.status).toBe('healed');
    if (outcome.status === 'healed') expect(JSON.parse(outcome.text)).toEqual(expected);
  });

  it.each(['{"name":"Ada"}', '{ "name" : "Ada" ,\n "tags": [] }'])('leaves schema-valid JSON alone: %s', (text) => {
    expect(healJson(text, check)).toEqual({ status: 'valid' });
  });

  it.each([
    ['valid JSON breaking the schema', '{"tags": []}', /^the output is JSON but does not match the schema: \/ must have required property 'name'$/],
    ['repaired JSON breaking the schema', '{"tags": [1, 2,]}', /^the repaired output does not match the schema/],
    ['nothing repairable', '{{{ "name"', /^the output is not repairable JSON: /],
  ])('calls %s unhealable, saying why', (_case, text, note) => {
    const outcome = healJson(text, check);
    expect(outcome.status).toBe('unhealable');
    if (outcome.status === 'unhealable') expect(outcome.note).toMatch(note);
  });
});

describe('jsonCandidates', () => {
  it.each([
    ['{"a":1}', ['{"a":1}']],
    ['x ```json\n{"a":1}\n``` y', ['x ```json\n{"a":1}\n``` y', '{"a":1}']],
    ['say [1, 2] now', ['say [1, 2] now', '[1, 2]']],
    ['no json', ['no json']],
  ])('reads %j', (text, candidates) => {
    expect(jsonCandidates(text)).toEqual(candidates);
  });
});

describe('schemaCheck', () => {
  it('checks nothing beyond syntax for a schema ajv cannot compile', () => {
    const lenient = schemaCheck({ type: 'no-such-type' });
    expect(lenient({ anything: true })).toBeNull();
  });

  it('reuses the compiled schema for the same schema', () => {
    const schema = { type: 'object', required: ['x'] };
    expect(schemaCheck(schema)({})).toBe("/ must have required property 'x'");
    expect(schemaCheck({ ...schema })({ x: 1 })).toBeNull();
  });
});

describe('requestedSchema', () => {
  it.each([
    [{ type: 'json_schema', schema: { type: 'object' } }, { type: 'object' }],
    [{ type: 'json_object' }, undefined],
    [undefined, undefined],
  ])('reads %j', (format, schema) => {
    expect(requestedSchema(format)).toEqual(schema);
  });
});
