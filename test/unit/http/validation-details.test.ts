import { describe, expect, it } from 'vitest';
import { pruneAlternatives } from '#src/http/validation-details.ts';

// What the validator reported, verbatim, for an image block with media_type image/bmp.
const badImage = [
  { path: '/body/messages/0/content', message: 'must be string' },
  { path: '/body/messages/0/content/0/text', message: "must have required property 'text'" },
  { path: '/body/messages/0/content/0/source/media_type', message: 'must be equal to one of the allowed values: image/jpeg, image/png, image/gif, image/webp' },
  { path: '/body/messages/0/content/0/source/url', message: "must have required property 'url'" },
  { path: '/body/messages/0/content/0/source', message: 'must match exactly one schema in oneOf' },
  { path: '/body/messages/0/content/0/type', message: 'must be equal to constant' },
  { path: '/body/messages/0/content/0/id', message: "must have required property 'id'" },
  { path: '/body/messages/0/content/0/tool_use_id', message: "must have required property 'tool_use_id'" },
  { path: '/body/messages/0/content/0/id', message: "must have required property 'id'" },
  { path: '/body/messages/0/content/0', message: 'must match a schema in anyOf' },
  { path: '/body/messages/0/content', message: 'must match exactly one schema in oneOf' },
];

describe('pruneAlternatives', () => {
  it('keeps the one complaint that explains a value matching no alternative', () => {
    expect(pruneAlternatives(badImage)).toEqual([
      { path: '/body/messages/0/content/0/source/media_type', message: 'must be equal to one of the allowed values: image/jpeg, image/png, image/gif, image/webp' },
    ]);
  });

  it('keeps complaints outside the alternatives as they are', () => {
    const session = { path: '/body/session_id', message: 'must NOT have more than 256 characters' };
    expect(pruneAlternatives([session, ...badImage])).toEqual([session, expect.objectContaining({ path: '/body/messages/0/content/0/source/media_type' })]);
  });

  it('falls back to the deepest missing properties, once each, when nothing more specific was said', () => {
    const unknownBlock = badImage.filter((detail) => !detail.path.includes('source'));
    expect(pruneAlternatives(unknownBlock)).toEqual([
      { path: '/body/messages/0/content/0/text', message: "must have required property 'text'" },
      { path: '/body/messages/0/content/0/id', message: "must have required property 'id'" },
      { path: '/body/messages/0/content/0/tool_use_id', message: "must have required property 'tool_use_id'" },
    ]);
  });

  it('changes nothing when no alternatives were involved', () => {
    const plain = [
      { path: '/body', message: "must have required property 'model'" },
      { path: '/body', message: "must have required property 'messages'" },
    ];
    expect(pruneAlternatives(plain)).toBe(plain);
  });
});

describe('pruneAlternatives with catch-all variants', () => {
  // What the validator reported for `{type: 'text'}` (no `text`) among the block variants and the catch-all.
  const textWithoutText = [
    { path: '/body/messages/0/content', message: 'must be string' },
    { path: '/body/messages/0/content/0/text', message: "must have required property 'text'" },
    { path: '/body/messages/0/content/0/type', message: 'must be equal to constant' },
    { path: '/body/messages/0/content/0/type', message: 'must match pattern "_tool_result$"' },
    { path: '/body/messages/0/content/0/type', message: 'must NOT be valid' },
    { path: '/body/messages/0/content/0', message: 'must match a schema in anyOf' },
    { path: '/body/messages/0/content', message: 'must match exactly one schema in oneOf' },
  ];

  it('ignores the catch-all\'s "must NOT be valid" and a tag\'s pattern when the variant said what is missing', () => {
    expect(pruneAlternatives(textWithoutText)).toEqual([{ path: '/body/messages/0/content/0/text', message: "must have required property 'text'" }]);
  });

  it('treats the allowed values of a variant\'s type as a tag, not the explanation', () => {
    const toolChoice = [
      { path: '/body/tool_choice/type', message: 'must be equal to one of the allowed values: auto, any, none' },
      { path: '/body/tool_choice/name', message: "must have required property 'name'" },
      { path: '/body/tool_choice/type', message: 'must NOT be valid' },
      { path: '/body/tool_choice', message: 'must match a schema in anyOf' },
    ];
    expect(pruneAlternatives(toolChoice)).toEqual([{ path: '/body/tool_choice/name', message: "must have required property 'name'" }]);
  });

  it('keeps a pattern on a type when nothing else explains the value', () => {
    const gatewayTool = [
      { path: '/body/tools/0/type', message: 'must be equal to constant' },
      { path: '/body/tools/0/type', message: 'must match pattern "^gateway:[a-z][a-z0-9_]*$"' },
      { path: '/body/tools/0/type', message: 'must NOT be valid' },
      { path: '/body/tools/0', message: 'must match a schema in anyOf' },
    ];
    expect(pruneAlternatives(gatewayTool)).toEqual([{ path: '/body/tools/0/type', message: 'must match pattern "^gateway:[a-z][a-z0-9_]*$"' }]);
  });
});

describe('pruneAlternatives with the alternative a value chose', () => {
  const everyCondition = [
    { path: '/body/stop_server_tools_when/0/step_count', message: "must have required property 'step_count'" },
    { path: '/body/stop_server_tools_when/0/type', message: 'must be equal to constant' },
    { path: '/body/stop_server_tools_when/0/max_cost_in_dollars', message: "must have required property 'max_cost_in_dollars'" },
    { path: '/body/stop_server_tools_when/0/type', message: 'must NOT be valid' },
    { path: '/body/stop_server_tools_when/0', message: 'must match exactly one schema in oneOf' },
  ];
  const own = [{ path: '/body/stop_server_tools_when/0/max_cost_in_dollars', message: "must have required property 'max_cost_in_dollars'" }];

  it('keeps only the chosen alternative\'s complaints for its union', () => {
    expect(pruneAlternatives(everyCondition, [{ path: '/body/stop_server_tools_when/0', details: own }])).toEqual(own);
  });

  it('falls back to the most specific complaints when the chosen alternative said nothing', () => {
    expect(pruneAlternatives(everyCondition, [{ path: '/body/stop_server_tools_when/0', details: [] }])).toHaveLength(2);
  });
});
