/**
 * Takes the secrets an upstream call was made with out of what the vendor said back. Vendors quote a rejected
 * key in many forms: whole, masked in the middle (OpenAI's `sk-proj-abc…****…wxyz`), percent-encoded in a URL,
 * base64-encoded in a `Basic` header or a dump, and Bedrock quotes the parts of the AWS key pair it was signed
 * with. A BYOK key need not look like any pattern the logger knows, so removal is by value: every run of a
 * secret (or of one of its encodings) longer than the four characters its masked label shows is replaced.
 * Pure functions, run on the error path only.
 */
import type { AttemptCall } from '#src/providers/provider-adapter.ts';
import { apiKeyOf } from '#src/providers/provider-adapter.ts';

/** How a removed run reads. */
export const REDACTED = '[REDACTED]';

/**
 * The shortest run of a secret that is removed. A masked label shows four characters; twelve leaves no
 * chance that an ordinary word matches while any fragment long enough to narrow a search goes.
 */
const RUN = 12;

/** Every secret one attempt sends upstream: its API key, or the AWS key pair (and session token) it signs with. */
export function callSecrets(call: Pick<AttemptCall, 'key' | 'awsCredentials'>): string[] {
  const aws = call.awsCredentials;
  const secrets = [apiKeyOf(call.key), aws?.accessKeyId, aws?.secretAccessKey, aws?.sessionToken];
  return secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length > 0);
}

/**
 * The base64 text that only the secret's own bytes decide, at each of the three alignments it can have inside
 * longer encoded data (`user:<key>` in a Basic header starts it mid-group); the ragged ends are left out.
 */
function base64Cores(secret: string): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset += 1) {
    const encoded = Buffer.concat([Buffer.alloc(offset), Buffer.from(secret)]).toString('base64').replace(/=+$/, '');
    const core = encoded.slice(offset === 0 ? 0 : offset + 1, -2);
    cores.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return cores;
}

/** The texts a secret may be quoted as. */
function quotedForms(secret: string): string[] {
  return [secret, encodeURIComponent(secret), Buffer.from(secret).toString('hex'), ...base64Cores(secret)];
}

/**
 * `text` with every run of at least twelve characters of any secret, or of its percent-encoded, hex or base64
 * form, replaced by `[REDACTED]`; a secret shorter than twelve characters is removed whole.
 */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0 || text.length === 0) return text;
  const runs = new Set<string>();
  let result = text;
  for (const secret of secrets) {
    for (const form of quotedForms(secret)) {
      if (form.length < RUN) {
        if (form.length > 0) result = result.replaceAll(form, REDACTED);
        continue;
      }
      for (let start = 0; start + RUN <= form.length; start += 1) runs.add(form.slice(start, start + RUN));
    }
  }
  return runs.size === 0 ? result : replaceRuns(result, runs);
}

// Marks every position a known run covers, then replaces each covered stretch once.
function replaceRuns(text: string, runs: ReadonlySet<string>): string {
  const covered = new Uint8Array(text.length);
  let found = false;
  for (let start = 0; start + RUN <= text.length; start += 1) {
    if (!runs.has(text.slice(start, start + RUN))) continue;
    covered.fill(1, start, start + RUN);
    found = true;
  }
  if (!found) return text;
  let result = '';
  for (let index = 0; index < text.length; index += 1) {
    if (covered[index] === 0) result += text[index];
    else if (index === 0 || covered[index - 1] === 0) result += REDACTED;
  }
  return result;
}
