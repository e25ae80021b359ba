/**
 * The one rule for a vendor model id's date suffix: Anthropic's ids carry a snapshot date
 * (`claude-sonnet-4-5-20250929`) that the catalog names without (`claude-sonnet-4-5`), and usage an upstream
 * reports per model (`usage.iterations[].model`) may name either. Pure functions.
 */

// `-YYYYMMDD` at the end of an id, nothing more: `-v1:0` Bedrock versions and `-5-5` generations keep theirs.
const DATE_SUFFIX = /-\d{8}$/;

/** The id without a trailing `-YYYYMMDD` snapshot date; the id itself when it has none. */
export function withoutDateSuffix(modelId: string): string {
  return modelId.replace(DATE_SUFFIX, '');
}
