/**
 * The size limit on input files: its default, the memory bound behind it,
 * the flag that changes it and how that flag's value is read. Kept apart
 * from the readers so the command line can check the flag without loading
 * them.
 *
 * @module
 */

/**
 * The memory one load may take, in bytes (4 GiB, about the engine's default
 * heap limit): the default size limit keeps the worst input kind under it.
 */
export const LOAD_MEMORY_BOUND: number = 4 * 1024 ** 3;

/**
 * A load's peak memory above the idle server, as a multiple of the input's
 * size, for the worst input kind measured by the client benchmark
 * (`tests/client_bench/benches/cloud_load.ts`; per-kind figures in the
 * README). Rounded up.
 */
export const LOAD_PEAK_FACTOR = 16;

/** The operator setting that changes the size limit. */
export const MAX_DATASET_BYTES_FLAG = "--max-dataset-bytes";

/**
 * Largest input file read by default, in bytes: {@linkcode LOAD_MEMORY_BOUND}
 * divided by {@linkcode LOAD_PEAK_FACTOR}, in whole MiB (256 MiB).
 */
export const MAX_INPUT_BYTES: number = Math.floor(LOAD_MEMORY_BOUND / LOAD_PEAK_FACTOR / 2 ** 20) *
  2 ** 20;

/** The limit in words, for messages. */
export function describeLimit(bytes: number = MAX_INPUT_BYTES): string {
  if (bytes >= 2 ** 30 && bytes % 2 ** 30 === 0) return `${bytes / 2 ** 30} GiB`;
  if (bytes >= 2 ** 20) return `${Number((bytes / 2 ** 20).toFixed(1))} MiB`;
  if (bytes >= 2 ** 10) return `${Number((bytes / 2 ** 10).toFixed(1))} KiB`;
  return `${bytes} bytes`;
}

/**
 * The refusal of a file over the limit: its size, the limit, the flag that
 * sets it and the memory bound behind it.
 */
export function oversizeMessage(name: string, size: number, limit: number): string {
  return `Cannot load ${name}: it is ${describeLimit(size)} and this server refuses input files ` +
    `larger than ${describeLimit(limit)} (${MAX_DATASET_BYTES_FLAG}). A load takes up to about ` +
    `${LOAD_PEAK_FACTOR}× the file's size in memory, so the default of ` +
    `${describeLimit(MAX_INPUT_BYTES)} keeps it under ${describeLimit(LOAD_MEMORY_BOUND)}. ` +
    `Split or filter the export, or ask the operator to restart the server with a larger ` +
    `${MAX_DATASET_BYTES_FLAG}.`;
}

/** Largest value {@linkcode parseByteSize} accepts: 64 GiB. */
export const MAX_BYTE_SIZE: number = 64 * 1024 ** 3;

/**
 * Parses a size such as `268435456`, `512MiB`, `512M`, `1GiB` or `1.5G`
 * (K, M, G are powers of 1024), for {@linkcode MAX_DATASET_BYTES_FLAG}.
 * Throws a RangeError naming the accepted forms otherwise.
 */
export function parseByteSize(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:([KMG])(?:I?B)?|B)?\s*$/i.exec(text);
  const units: Record<string, number> = { K: 2 ** 10, M: 2 ** 20, G: 2 ** 30 };
  const bytes = match
    ? Math.floor(Number(match[1]) * (match[2] ? units[match[2].toUpperCase()]! : 1))
    : NaN;
  if (!Number.isFinite(bytes) || bytes < 1 || bytes > MAX_BYTE_SIZE) {
    throw new RangeError(
      `${MAX_DATASET_BYTES_FLAG} takes a size from 1 byte to 64 GiB: a number of bytes or one ` +
        `with a K, M or G suffix (powers of 1024), e.g. 256M or 1G; got ${
          JSON.stringify(text.slice(0, 40))
        }.`,
    );
  }
  return bytes;
}
