/**
 * The AI SDK vendor packages, each loaded on the first call of its factory instead of at start. Together
 * they cost about 38 MB of RSS and half a second (Node 24.21, measured): a gateway that only passes
 * Anthropic-format traffic through never pays that, and one that uses a family pays it once, on that
 * family's first request.
 *
 * Loading is synchronous (`require` of the package's ES module entry, which Node 24 supports for modules
 * without top-level await), so callers keep calling the factories as plain functions, and the instance is the
 * same one an `import` elsewhere would get.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

type AmazonBedrockPackage = typeof import('@ai-sdk/amazon-bedrock');
type AzurePackage = typeof import('@ai-sdk/azure');
type GooglePackage = typeof import('@ai-sdk/google');
type OpenAiPackage = typeof import('@ai-sdk/openai');
type OpenAiCompatiblePackage = typeof import('@ai-sdk/openai-compatible');

const require = createRequire(import.meta.url);
const loaded = new Map<string, unknown>();

function load<T>(specifier: string): T {
  let module = loaded.get(specifier);
  if (module === undefined) {
    module = require(fileURLToPath(import.meta.resolve(specifier)));
    loaded.set(specifier, module);
  }
  return module as T;
}

/** The vendor packages loaded so far (tests: nothing is loaded before a family is used). */
export function loadedVendorPackages(): string[] {
  return [...loaded.keys()];
}

/** `createAmazonBedrock` of `@ai-sdk/amazon-bedrock`, loaded on first call. */
export const createAmazonBedrock: AmazonBedrockPackage['createAmazonBedrock'] = (...args) =>
  load<AmazonBedrockPackage>('@ai-sdk/amazon-bedrock').createAmazonBedrock(...args);

/** `createAzure` of `@ai-sdk/azure`, loaded on first call. */
export const createAzure: AzurePackage['createAzure'] = (...args) => load<AzurePackage>('@ai-sdk/azure').createAzure(...args);

/** `createGoogleGenerativeAI` of `@ai-sdk/google`, loaded on first call. */
export const createGoogleGenerativeAI: GooglePackage['createGoogleGenerativeAI'] = (...args) =>
  load<GooglePackage>('@ai-sdk/google').createGoogleGenerativeAI(...args);

/** `createOpenAI` of `@ai-sdk/openai`, loaded on first call. */
export const createOpenAI: OpenAiPackage['createOpenAI'] = (...args) => load<OpenAiPackage>('@ai-sdk/openai').createOpenAI(...args);

/** `createOpenAICompatible` of `@ai-sdk/openai-compatible`, loaded on first call. */
export const createOpenAICompatible: OpenAiCompatiblePackage['createOpenAICompatible'] = (...args) =>
  load<OpenAiCompatiblePackage>('@ai-sdk/openai-compatible').createOpenAICompatible(...args);
