/**
 * Keys that are recognisably of another kind than their provider takes: stored, they were sent as the
 * provider's header and every request with them failed upstream. Each reason says what the key looks like and
 * what the provider takes instead, and never repeats the key (nor a field of it).
 * @see ProviderKey in openapi/components/schemas/byok-fields.yaml
 */
import { RuleViolation } from '#src/byok/rules.ts';

const GEMINI_KEY = 'the google provider calls the Gemini API, which takes a Gemini API key (AIza…, from Google AI Studio); Vertex AI credentials are not supported';
const BEDROCK_KEY = 'the bedrock provider takes a Bedrock API key, sent as a bearer token (create one in the Bedrock console); AWS access key pairs are not supported for BYOK';

// An AWS access key id (long-term AKIA, temporary ASIA), alone or followed by its secret.
const AWS_ACCESS_KEY_ID = /^(AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/;
// Field names of AWS credential documents (the CLI's, the SDKs', an STS answer's).
const AWS_CREDENTIAL_FIELDS = ['accessKeyId', 'AccessKeyId', 'aws_access_key_id', 'secretAccessKey', 'SecretAccessKey', 'aws_secret_access_key'];

function googleKey(document: Record<string, unknown> | null): void {
  if (document === null) return;
  if (document.type === 'service_account' || 'private_key' in document) {
    throw new RuleViolation(`key is a Google Cloud service-account JSON document: ${GEMINI_KEY}`);
  }
  throw new RuleViolation(`key is a JSON document: ${GEMINI_KEY}`);
}

function bedrockKey(key: string, document: Record<string, unknown> | null): void {
  if (AWS_ACCESS_KEY_ID.test(key.trim())) throw new RuleViolation(`key is an AWS access key id: ${BEDROCK_KEY}`);
  if (document !== null && AWS_CREDENTIAL_FIELDS.some((field) => field in document)) {
    throw new RuleViolation(`key is a JSON document of AWS credentials: ${BEDROCK_KEY}`);
  }
}

/**
 * Refuses a key of the wrong kind for its provider. `document` is the JSON object the key's text holds, or null
 * when it holds none.
 */
export function checkKeyShape(provider: string, key: string, document: Record<string, unknown> | null): void {
  if (provider === 'google') googleKey(document);
  else if (provider === 'bedrock') bedrockKey(key, document);
}
