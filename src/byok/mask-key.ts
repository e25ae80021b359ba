/**
 * The masked `label` of a provider key: enough to tell keys apart (`sk-…wxyz`), never enough to use one.
 */

/** Keys shorter than this are masked completely: four characters of a short key are too much of it. */
export const MIN_LENGTH_TO_SHOW_TAIL = 16;

const FULL_MASK = '…';
const PREFIX = /^([A-Za-z]{2,5}[-_])/;

/** `sk-proj-abc…wxyz` becomes `sk-…wxyz`; a key without a vendor prefix `…wxyz`; a short key `…`. */
export function maskProviderKey(apiKey: string): string {
  if (apiKey.length < MIN_LENGTH_TO_SHOW_TAIL) return FULL_MASK;
  const prefix = PREFIX.exec(apiKey)?.[1] ?? '';
  return `${prefix}…${apiKey.slice(-4)}`;
}
