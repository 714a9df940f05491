/**
 * Orderings shared by cloud queries: plain Unicode code-point comparison
 * (never locale collation), as the reference sorts strings.
 *
 * @module
 */

/**
 * Compares two strings by Unicode code point. A supplementary-plane character
 * sorts after every BMP character, unlike UTF-16 code-unit order.
 *
 * @example
 * ```ts
 * import { compareCodePoints } from "./order.ts";
 * ["b", "B", "a"].sort(compareCodePoints); // ["B", "a", "b"]
 * ```
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return rank(x) - rank(y);
  }
  return a.length - b.length;
}

// Surrogates (0xD800–0xDFFF) rank above 0xE000–0xFFFF so unit order becomes code-point order.
function rank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}
