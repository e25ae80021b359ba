import { describe, expect, it } from 'vitest';
import type { MessageRequest } from '#src/api-types.ts';
import { withoutBillingHeader } from '#src/providers/ai-sdk/drop-billing-header.ts';

const HEADER = { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.332.1c9; cc_entrypoint=sdk-cli;' };
const PROMPT = { type: 'text', text: 'You are a Claude agent.', cache_control: { type: 'ephemeral' } };

type System = MessageRequest['system'];

describe('withoutBillingHeader', () => {
  it.each<[string, System, System]>([
    ['drops a leading billing header block', [HEADER, PROMPT], [PROMPT]],
    ['drops one carrying more fields', [{ type: 'text', text: `${HEADER.text} cc_is_subagent=true; cc_gateway=env;` }, PROMPT], [PROMPT]],
    ['leaves a system prompt of only the header empty', [HEADER], []],
    ['keeps a header that is not the first block', [PROMPT, HEADER], [PROMPT, HEADER]],
    ['drops only the first of two', [HEADER, HEADER, PROMPT], [HEADER, PROMPT]],
    ['keeps a block with prompt text after the header line', [{ type: 'text', text: `${HEADER.text}\nYou are a Claude agent.` }], [{ type: 'text', text: `${HEADER.text}\nYou are a Claude agent.` }]],
    ['keeps a block that only mentions the header', [{ type: 'text', text: ` ${HEADER.text}` }, PROMPT], [{ type: 'text', text: ` ${HEADER.text}` }, PROMPT]],
    ['keeps another casing', [{ type: 'text', text: HEADER.text.toUpperCase() }], [{ type: 'text', text: HEADER.text.toUpperCase() }]],
    ['keeps a string system prompt', HEADER.text, HEADER.text],
    ['keeps no system prompt', undefined, undefined],
  ])('%s', (_name, system, expected) => {
    const request = { system, messages: [] } as Pick<MessageRequest, 'system' | 'messages'>;
    const result = withoutBillingHeader(request);
    expect(result.system).toEqual(expected);
    expect(result.messages).toBe(request.messages);
  });

  it('returns the same request, and the same remaining blocks, by identity', () => {
    const untouched = { system: [PROMPT] } as Pick<MessageRequest, 'system'>;
    expect(withoutBillingHeader(untouched)).toBe(untouched);
    const stripped = withoutBillingHeader({ system: [HEADER, PROMPT] } as Pick<MessageRequest, 'system'>);
    // Cache breakpoints are planned per block object: the kept blocks must be the client's own.
    expect((stripped.system as unknown[])[0]).toBe(PROMPT);
  });
});
