/**
 * Code-point string order, the order every sorted graph result uses.
 *
 * @module
 */

/** Compares two strings by Unicode code point (not UTF-16 code unit): negative, 0 or positive. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (0xD800–0xDFFF) encodes a code point above 0xFFFF, so it
    // sorts after every BMP unit from 0xE000 up.
    const sx = x >= 0xd800 && x <= 0xdfff ? x + 0x2000 : x >= 0xe000 ? x - 0x800 : x;
    const sy = y >= 0xd800 && y <= 0xdfff ? y + 0x2000 : y >= 0xe000 ? y - 0x800 : y;
    return sx - sy;
  }
  return a.length - b.length;
}
