/**
 * `cache_control: null`, which Anthropic accepts everywhere a marker may go (its SDKs type each one
 * `CacheControlEphemeral | null`) and which clients send to switch caching off per block
 * (`"cache_control": None if caching_disabled else {"type": "ephemeral"}`): it is no marker. It reaches an
 * Anthropic-format upstream byte for byte, counts toward no limit, and a translated vendor takes the request
 * as if the field were absent.
 */
import { describe, expect, it } from 'vitest';
import { reply, type FakeUpstream } from '#test/helpers/fake-upstreams/index.ts';
import type { TestGateway } from '#test/helpers/start-gateway.ts';
import { postMessage } from './routing-support.ts';
import { useMixedVendorGateway } from './mixed-vendor-gateway.ts';

let openai: FakeUpstream;
let alpha: FakeUpstream;
let gateway: TestGateway;
useMixedVendorGateway((started) => ({ openai, alpha, gateway } = started));

const off = { cache_control: null };
const marked = (text: string) => ({ type: 'text', text, cache_control: { type: 'ephemeral' } });

/** A null marker wherever Anthropic takes one, next to the 4 real markers a request may carry. */
function nullMarkedRequest(model: string): Record<string, unknown> {
  return {
    model,
    max_tokens: 64,
    tools: [{ name: 'lookup', description: 'Looks a word up', input_schema: { type: 'object', properties: { word: { type: 'string' } } }, ...off }],
    system: [marked('one'), { type: 'text', text: 'Be brief.', ...off }],
    messages: [
      { role: 'user', content: [marked('two'), { type: 'text', text: 'Look up "gateway".', ...off }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'lookup', input: { word: 'gateway' }, ...off }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01', content: 'A server that forwards requests.', ...off },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' }, ...off },
          { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Notes' }, ...off },
          marked('three'),
          marked('four'),
        ],
      },
    ],
    cache_control: null,
  };
}

describe('cache_control: null', () => {
  it('reaches an Anthropic-format upstream byte for byte, its null markers counting toward no limit', async () => {
    alpha.enqueue(reply.fixture('anthropic-text'));
    const body = nullMarkedRequest('test/anthropic');
    const response = await fetch(`${gateway.baseUrl}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.api_key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

    expect(response.status, await response.clone().text()).toBe(200);
    // The top-level field is the gateway's own (a null one places nothing); every block's null goes as sent.
    const { cache_control: _topLevel, ...forwarded } = body;
    expect(alpha.lastRequest().rawBody).toBe(JSON.stringify({ ...forwarded, model: 'up-alpha' }));
  });

  it('on a server tool reaches an Anthropic-format upstream as sent', async () => {
    alpha.enqueue(reply.fixture('anthropic-text'));
    const body = { model: 'test/anthropic', max_tokens: 64, tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 2, ...off }], messages: [{ role: 'user', content: 'News?' }] };
    const call = await postMessage(gateway, body);

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    expect(alpha.lastRequest().rawBody).toBe(JSON.stringify({ ...body, model: 'up-alpha' }));
  });

  it('is taken as no marker by a translated vendor', async () => {
    openai.enqueue(reply.fixture('openai-text'));
    const body = nullMarkedRequest('test/openai');
    const call = await postMessage(gateway, { ...body, messages: (body.messages as unknown[]).slice(0, 1) });

    expect(call.status, JSON.stringify(call.body)).toBe(200);
    const sent = openai.lastRequest().body as { messages: unknown[]; tools: Array<{ function: { name: string } }> };
    expect(sent.tools.map((tool) => tool.function.name)).toEqual(['lookup']);
    expect(JSON.stringify(sent)).not.toContain('cache_control');
  });
});
