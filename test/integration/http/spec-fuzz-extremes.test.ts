/**
 * Values the spec allows at its edges (a number's maximum and minimum, or the largest a JSON number holds
 * where the spec sets none; a string of its maximum length, in ASCII and in astral characters), one property
 * at a time in each write operation's example body: the gateway stores and returns them as sent, or refuses
 * them with a documented 4xx naming the field, never a 500. What the spec allows the code must handle.
 */
import { describe, expect, it } from 'vitest';
import { checkResponse } from '#test/helpers/spec-validator.ts';
import { keyKindOf } from '#test/integration/http/spec-fuzz-cases.ts';
import { generateExtremeCases } from '#test/integration/http/spec-fuzz-extreme-cases.ts';
import { useFuzzSetup } from '#test/integration/http/spec-fuzz-support.ts';

const setup = useFuzzSetup();

describe('values at the edges the spec allows', () => {
  it.each(generateExtremeCases())('$operation: $property at $label', async ({ method, template, property, body, query }) => {
    const { gateway, ids } = setup;
    const key = keyKindOf(method, template) === 'inference' ? gateway.api_key : gateway.management_key;
    const path = ids[template] !== undefined ? template.replace(/\{[a-z_]+\}/, ids[template]!) : template;
    const headers = { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) };
    const response = await fetch(`${gateway.baseUrl}${path}${query ? `?${query}` : ''}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
    const text = await response.text();
    const shown = `${response.status} ${text.slice(0, 600)}`;
    expect(response.status, shown).toBeLessThan(500);
    const answer = JSON.parse(text) as { data?: Record<string, unknown>; error?: { message: string } };
    expect(checkResponse({ path: template, method, status: response.status, contentType: response.headers.get('content-type') ?? '', body: answer }).errors, shown).toEqual([]);
    const name = property.replace(/^\?/, '').split('.')[0]!;
    if (response.status >= 400) expect(answer.error?.message.toLowerCase(), shown).toContain(name);
    else if (body && !property.includes('.') && answer.data && property in answer.data) expect(answer.data[property], shown).toEqual(body[property]);
  });
});
