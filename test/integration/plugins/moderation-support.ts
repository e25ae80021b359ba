/**
 * Shared pieces of the `moderation` plugin suites: the marker word their fake screeners flag, a gateway whose
 * `test/chat` (on an Anthropic-format fake) is screened by the plugin, long unique texts and an agent's `Read`
 * tool turns to screen, and what one call to OpenAI's moderation endpoint carried.
 */
import { randomUUID } from 'node:crypto';
import { moderationResult, openAiModerationsFormat, startFakeAnthropic, startFakeUpstream, type FakeUpstream, type RecordedRequest } from '#test/helpers/fake-upstreams/index.ts';
import { startTestGateway, type TestGateway } from '#test/helpers/start-gateway.ts';
import { anthropicProviderYaml, catalogYaml, modelYaml } from '#test/integration/routing/routing-support.ts';

/** The word the fake screeners flag (violence) wherever it stands. */
export const MARKER = 'ZORBLAX';

/**
 * A catalog with `test/chat` on Alpha (`model`), the suite's own providers and models, and the plugin's
 * `moderation:` settings (YAML flow mapping).
 */
export function moderationCatalogYaml(model: FakeUpstream, moderation: string, extras: { providers?: string[]; models?: string[] } = {}): string {
  return [
    catalogYaml(
      [anthropicProviderYaml('alpha', model), ...(extras.providers ?? [])],
      [modelYaml('test/chat', [{ provider: 'alpha', model: 'claude-chat', price: [1, 2] }]), ...(extras.models ?? [])],
    ),
    'plugins:',
    `  moderation: ${moderation}`,
    '',
  ].join('\n');
}

/** The texts one call to OpenAI's moderation endpoint carried in `input` (a string or a list). */
export function inputsOf(request: RecordedRequest): string[] {
  const input = (request.body as { input?: unknown }).input;
  return Array.isArray(input) ? input.map(String) : [String(input)];
}

/** One moderation result per input, flagged (violence) when the input holds MARKER. */
export function markerResults(inputs: string[]) {
  return inputs.map((text) => (text.includes(MARKER) ? moderationResult({ violence: 0.9 }) : moderationResult()));
}

/** A fake of OpenAI's moderation endpoint, the fake model and the gateway screening with the `openai` engine. */
export interface OpenAiModerationGateway {
  moderations: FakeUpstream;
  model: FakeUpstream;
  gateway: TestGateway;
}

/** Starts the fakes (the endpoint answering each call with `moderate`) and the gateway. */
export async function startOpenAiModerationGateway(moderate: (request: RecordedRequest) => { status: number; body: unknown }): Promise<OpenAiModerationGateway> {
  const [moderations, model] = await Promise.all([startFakeUpstream({ ...openAiModerationsFormat(), answerDirectly: moderate }, {}, '/v1'), startFakeAnthropic()]);
  const moderator = `  moderator: { family: openai-chat, base_url: "${moderations.baseURL}", api_key: "sk-moderator-0001" }`;
  const gateway = await startTestGateway({ catalogYaml: moderationCatalogYaml(model, '{ engine: openai, provider: moderator, model: omni-moderation-latest }', { providers: [moderator] }) });
  return { moderations, model, gateway };
}

/** `characters` of text in lines of 80, each line unique to this call (nothing passed before). */
export function longText(characters: number): string {
  const nonce = randomUUID();
  const lines: string[] = [];
  for (let length = 0, line = 0; length < characters; line += 1) {
    const text = `${nonce} line ${line}: ${'x'.repeat(40)}`.padEnd(79, '.');
    lines.push(text);
    length += text.length + 1;
  }
  return lines.join('\n').slice(0, characters);
}

const TOOLS = [{ name: 'Read', description: 'Reads a file.', input_schema: { type: 'object', properties: { file_path: { type: 'string' } } } }];

/** The agent's turn calling `Read` (call `id`). */
export function readCall(id: string) {
  return { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: `/src/${id}.ts` } }] };
}

/** The user's turn answering `Read` call `id` with `content`. */
export function readResult(id: string, content: string) {
  return { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] };
}

/** A moderated request to `test/chat` offering `Read`, in a session of its own. */
export function readingBody(system: string, messages: unknown[]): Record<string, unknown> {
  return { model: 'test/chat', max_tokens: 64, session_id: randomUUID(), tools: TOOLS, plugins: [{ id: 'moderation' }], system, messages };
}
