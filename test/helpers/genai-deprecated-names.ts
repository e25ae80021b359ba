/**
 * GenAI attribute names the OpenTelemetry conventions deprecated, renamed or removed, so tests of the OTLP
 * export can check that no span carries one. Taken from the conventions' own records: the deprecated registry
 * of open-telemetry/semantic-conventions (`model/gen-ai/deprecated/registry-deprecated.yaml`: the `renamed` and
 * `obsoleted` entries; every other `gen_ai.*` entry there only moved to the GenAI repository) and the GenAI
 * repository's changelog (open-telemetry/semantic-conventions-genai, `changelog.d/440.breaking.md`).
 */

/** Deprecated name → what replaced it (null: removed without a replacement). */
export const DEPRECATED_GEN_AI_NAMES: Readonly<Record<string, string | null>> = {
  'gen_ai.system': 'gen_ai.provider.name',
  'gen_ai.usage.prompt_tokens': 'gen_ai.usage.input_tokens',
  'gen_ai.usage.completion_tokens': 'gen_ai.usage.output_tokens',
  'gen_ai.usage.cache_creation.input_tokens': 'gen_ai.usage.cache_write.input_tokens',
  'gen_ai.prompt': null,
  'gen_ai.completion': null,
  'gen_ai.openai.request.seed': 'gen_ai.request.seed',
  'gen_ai.openai.request.response_format': 'gen_ai.output.type',
  'gen_ai.openai.request.service_tier': 'openai.request.service_tier',
  'gen_ai.openai.response.service_tier': 'openai.response.service_tier',
  'gen_ai.openai.response.system_fingerprint': 'openai.response.system_fingerprint',
};

/** `name of span: attribute` for every attribute of `spans` under a deprecated GenAI name (none is right). */
export function deprecatedGenAiAttributes(spans: readonly { name: string; attributes: Record<string, unknown> }[]): string[] {
  return spans.flatMap((span) => Object.keys(span.attributes).filter((key) => key in DEPRECATED_GEN_AI_NAMES).map((key) => `${span.name}: ${key}`));
}
