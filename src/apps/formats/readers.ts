/**
 * The binary formats a target may be in, each with its detector and the
 * reader that turns its bytes into `BinaryImage` documents.
 *
 * @module
 */

import type { SubjectFormat } from "../evidence.ts";
import { deferredElfImage, elfImage } from "./elf/image.ts";
import type { BinaryImage } from "./binary_image.ts";
import { machOImages } from "./macho/image.ts";
import { isMachO } from "./macho/parse.ts";
import { peImage } from "./pe/image.ts";
import { isPe } from "./pe/headers.ts";
import { isElf } from "./elf/parse.ts";
import { type ByteRange, elfHeaderRanges } from "./elf/header_ranges.ts";
import { wasmImage } from "./wasm/image.ts";
import { isWasm } from "./wasm/parse.ts";

/** One format. */
export interface FormatReader {
  /** Name used in messages and results. */
  name: string;
  detect(bytes: Uint8Array): boolean;
  /** The documents of the file; throws the reader's parse error on unusable input. */
  read(bytes: Uint8Array, fileName: string): BinaryImage[];
  /**
   * The same documents with their costly parts read on first use (see
   * `deferred_image.ts`), refusing the same files now; absent when the reader
   * has nothing cheaper than `read`.
   */
  readDeferred?(bytes: Uint8Array, fileName: string): BinaryImage[];
  /**
   * The byte ranges `readDeferred` reads, as far as the bytes filled in so
   * far tell (see `elf/header_ranges.ts`); null to read the file whole.
   * Absent when the reader needs every byte.
   */
  headerRanges?(bytes: Uint8Array, budget: number): ByteRange[] | null;
  /** The subject format recorded in Evidence. */
  subjectFormat(documents: readonly BinaryImage[]): SubjectFormat;
}

/** Readers in detection order (most specific magic first). */
export const FORMAT_READERS: readonly FormatReader[] = [
  {
    name: "ELF",
    detect: isElf,
    read: (bytes, fileName) => [elfImage(bytes, fileName)],
    readDeferred: (bytes, fileName) => [deferredElfImage(bytes, fileName)],
    headerRanges: elfHeaderRanges,
    subjectFormat: () => "elf",
  },
  {
    name: "PE",
    detect: isPe,
    read: (bytes, fileName) => [peImage(bytes, fileName)],
    subjectFormat: () => "pe",
  },
  {
    name: "Mach-O",
    detect: isMachO,
    read: (bytes, fileName) => machOImages(bytes, fileName),
    subjectFormat: (documents) => (documents.length > 1 ? "mach-o-universal" : "mach-o"),
  },
  {
    name: "WebAssembly",
    detect: isWasm,
    read: (bytes, fileName) => [wasmImage(bytes, fileName)],
    subjectFormat: () => "wasm",
  },
];

/** The reader for these bytes, or undefined. */
export function readerFor(bytes: Uint8Array): FormatReader | undefined {
  return FORMAT_READERS.find((reader) => reader.detect(bytes));
}
