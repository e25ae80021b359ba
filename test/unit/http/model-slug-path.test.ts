import { describe, expect, it } from 'vitest';
import { encodeModelSlugSlash } from '#src/http/model-slug-path.ts';

const MODELS = '/api/v1/models/';

describe('encodeModelSlugSlash', () => {
  it.each([
    ['/api/v1/models/anthropic/claude-sonnet-4.5', '/api/v1/models/anthropic%2Fclaude-sonnet-4.5'],
    ['/api/v1/models/openai/gpt-5?x=1', '/api/v1/models/openai%2Fgpt-5?x=1'],
    ['/api/v1/models/anthropic%2Fclaude-sonnet-4.5', '/api/v1/models/anthropic%2Fclaude-sonnet-4.5'],
    ['/api/v1/models/claude-sonnet-4-5', '/api/v1/models/claude-sonnet-4-5'],
    ['/api/v1/models/a/b/c', '/api/v1/models/a/b/c'],
    ['/api/v1/models/anthropic/', '/api/v1/models/anthropic/'],
    ['/api/v1/models//gpt-5', '/api/v1/models//gpt-5'],
    ['/api/v1/models?limit=1', '/api/v1/models?limit=1'],
    ['/api/v1/messages', '/api/v1/messages'],
  ])('%s → %s', (url, expected) => {
    expect(encodeModelSlugSlash(url, MODELS)).toBe(expected);
  });
});
