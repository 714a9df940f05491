/**
 * Test helper: random in-place corruption of a file's bytes, for checking
 * that a format reader either refuses damage with its own error or reads
 * on with warnings.
 *
 * @module
 */

/** Options of {@link corruptRounds}. */
export interface CorruptionOptions {
  /** The seeded random source, returning numbers in [0, 1). */
  random: () => number;
  /** How many corruptions to try (default 300). */
  rounds?: number;
  /** Called while the bytes are damaged. */
  check: (site: CorruptionSite) => void;
}

/** Where one round of {@link corruptRounds} damaged the bytes. */
export interface CorruptionSite {
  /** The round, from 0. */
  round: number;
  /** The index of the region picked. */
  region: number;
  /** The first damaged offset. */
  at: number;
  /** How many bytes from `at` were damaged (fewer at the end of the file). */
  width: number;
  /** `corruption ROUND at AT (WIDTH bytes)`, for assertion messages. */
  label: string;
}

/**
 * Damages `bytes` once per round and calls `check` while they are damaged,
 * restoring them afterwards. Each round picks one of `regions` (start and
 * end offsets, chosen evenly, so a region listed twice is picked twice as
 * often), an offset in it (at most the last byte) and a width (one byte
 * every third round, else one to eight), then sets those bytes to 0xff
 * every fifth round or XORs each with a random non-zero value.
 */
export function corruptRounds(
  bytes: Uint8Array,
  regions: readonly [number, number][],
  options: CorruptionOptions,
): void {
  const int = (n: number): number => Math.floor(options.random() * n);
  for (let i = 0; i < (options.rounds ?? 300); i++) {
    const region = int(regions.length);
    const [start, end] = regions[region]!;
    const at = Math.min(bytes.length - 1, start + int(Math.max(1, end - start)));
    const width = i % 3 === 0 ? 1 : 1 + int(8);
    const saved = bytes.slice(at, at + width);
    for (let k = 0; k < width && at + k < bytes.length; k++) {
      bytes[at + k] = i % 5 === 0 ? 0xff : (bytes[at + k]! ^ (1 + int(255)));
    }
    options.check({
      round: i,
      region,
      at,
      width,
      label: `corruption ${i} at ${at} (${width} bytes)`,
    });
    bytes.set(saved, at);
  }
}
