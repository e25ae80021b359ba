/**
 * Whether a JSON schema fits OpenAI's strict mode (Structured Outputs), which the OpenAI packages ask for by
 * default: every object closed (`additionalProperties: false`) and every one of its properties required.
 * Anthropic's structured outputs take optional properties, which OpenAI refuses in strict mode with a 400
 * (`'required' is required to be supplied and to be an array including every key in properties`), so a
 * schema outside that subset is sent without strict mode rather than have a valid request refused.
 * @see https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
 */

type SchemaNode = Record<string, unknown>;

// Keywords whose value is one schema, or a list or map of them, that strict mode also checks.
const SUBSCHEMA_KEYWORDS = ['items', 'anyOf', 'allOf', 'oneOf', 'prefixItems'] as const;
const SCHEMA_MAP_KEYWORDS = ['properties', '$defs', 'definitions'] as const;

function isNode(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isClosedObject(node: SchemaNode): boolean {
  const properties = isNode(node.properties) ? Object.keys(node.properties) : [];
  const required = Array.isArray(node.required) ? node.required : [];
  return node.additionalProperties === false && properties.every((name) => required.includes(name));
}

function isObjectNode(node: SchemaNode): boolean {
  const type = node.type;
  return type === 'object' || (Array.isArray(type) && type.includes('object')) || (type === undefined && isNode(node.properties));
}

/** Whether `schema` and every schema inside it satisfy OpenAI's strict-mode rules for objects. */
export function fitsOpenAiStrictMode(schema: unknown): boolean {
  if (!isNode(schema)) return true;
  if (isObjectNode(schema) && !isClosedObject(schema)) return false;
  for (const keyword of SUBSCHEMA_KEYWORDS) {
    const value = schema[keyword];
    const children = Array.isArray(value) ? value : [value];
    if (!children.every(fitsOpenAiStrictMode)) return false;
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const value = schema[keyword];
    if (isNode(value) && !Object.values(value).every(fitsOpenAiStrictMode)) return false;
  }
  return true;
}
