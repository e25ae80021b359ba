/**
 * USD for token counts at a catalog price pair, the arithmetic every cost suite checks the gateway's `usage.cost`
 * against: the catalog states prices in USD per million tokens.
 */

/** USD of `input` and `output` tokens at `price` (input, output; USD per million tokens). */
export function priceOf(input: number, output: number, price: readonly [number, number]): number {
  return (input * price[0] + output * price[1]) / 1e6;
}
