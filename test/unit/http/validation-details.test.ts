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
