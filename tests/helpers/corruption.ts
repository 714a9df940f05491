/**
 * Test helper: random in-place corruption of a file's bytes, for checking
 * that a format reader either refuses damage with its own error or reads
 * on with warnings.
 *
 * @module
 */

import assert from "node:assert/strict";

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

/** Options of {@link tallyCorruptions}. */
export interface TallyOptions<R, E extends Error> {
  /** The seeded random source, returning numbers in [0, 1). */
  random: () => number;
  /** Parses the damaged bytes; returns the reader's own error instead of throwing it. */
  parse: (label: string) => R;
  /** The reader's own error class: a result of it counts as a refusal. */
  refusal: abstract new (...args: never[]) => E;
  /** The warnings of a result that is not a refusal (called once per such result). */
  warnings: (result: Exclude<R, E>) => readonly string[];
}

/** How the rounds of {@link tallyCorruptions} came out. */
export interface CorruptionTally {
  /** Rounds the reader refused with its own error. */
  thrown: number;
  /** Rounds it read on, with warnings. */
  warned: number;
}

/**
 * Runs {@link corruptRounds} (300 rounds) with `parse` as the check and counts
 * the refusals and the results with warnings; asserts that both outcomes
 * occurred, so the corruptions reached the reader's checks.
 */
export function tallyCorruptions<R, E extends Error>(
  bytes: Uint8Array,
  regions: readonly [number, number][],
  options: TallyOptions<R, E>,
): CorruptionTally {
  const tally = { thrown: 0, warned: 0 };
  corruptRounds(bytes, regions, {
    random: options.random,
    check: ({ label }) => {
      const result = options.parse(label);
      if (result instanceof options.refusal) tally.thrown++;
      else if (options.warnings(result as Exclude<R, E>).length > 0) tally.warned++;
    },
  });
  assert.ok(tally.thrown > 0 && tally.warned > 0, "the corruptions should exercise both outcomes");
  return tally;
}
