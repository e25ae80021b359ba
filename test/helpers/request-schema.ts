/**
 * Checks a message request body against the bundled spec's `MessageRequest` schema, independently of the
 * server's validator, so unit tables can show that a body the translators meet is one the gateway accepts.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

const specPath = fileURLToPath(new URL('../../generated/openapi.yaml', import.meta.url));
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
(addFormatsModule as unknown as (instance: Ajv2020) => void)(ajv);
ajv.addSchema({ ...(parse(readFileSync(specPath, 'utf8')) as object), $id: 'spec' });
const validate = ajv.compile({ $ref: 'spec#/components/schemas/MessageRequest' });

/** The schema's complaints about a message request body; none when the spec accepts it. */
export function messageRequestErrors(body: unknown): string[] {
  if (validate(body)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`);
}
