/**
 * A small seeded pseudo-random generator, so sampled answers and generated
 * estates are the same on every run.
 *
 * @module
 */

/**
 * A generator of numbers in [0, 1) seeded by `seed` (mulberry32): the same
 * seed always gives the same sequence.
 *
 * @example
 * ```ts
 * import { mulberry32 } from "./random.ts";
 * const next = mulberry32(7);
 * next(); // the same first number on every run
 * ```
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
