/**
 * Mapping a runtime address (a crash PC, a backtrace frame) to a static
 * address of the file on disk.
 *
 * With the memory map a capture recorded (gdb's `info proc mappings`), the
 * mapping is exact: the runtime address lies in a file-backed mapping
 * `[start, end)` at file offset `offset`, so its file offset is
 * `address - start + offset`, and the image's section table turns that file
 * offset into the static virtual address (this works for PIE and non-PIE
 * alike). Without a map, a caller-supplied load base gives
 * `address - load_base`, and with neither the address is taken as static
 * (right only for a non-PIE executable); both are marked inferred.
 *
 * @module
 */

import { type BinaryImage, offsetToAddress } from "../formats/binary_image.ts";
import type { MemoryMapping } from "./gdb.ts";

/** How a runtime address became a static one. */
export interface AddressMapping {
  runtime_address: string;
  /** The static address in the open document, or null when it does not map into it. */
  static_address: string | null;
  method: "memory-map" | "load-base" | "identity" | "unmapped";
  /** Whether the mapping rests on an assumption (inferred) or on recorded facts (derived). */
  confidence: "derived" | "inferred";
  /** The mapped file the address lies in, per the recorded map. */
  module: string | null;
  mapping: MemoryMapping | null;
  file_offset: number | null;
  load_base: string | null;
  explanation: string;
}

/** Options of {@linkcode mapRuntimeAddress}. */
export interface MapOptions {
  /** The capture's recorded memory map (empty when none). */
  mappings: readonly MemoryMapping[];
  /** Paths that name the open file (its real path; the capture's executable when they match). */
  modulePaths: readonly string[];
  /** A caller-supplied load base, used only without a recorded map. */
  loadBase?: bigint;
}

/** Maps `address` (runtime) into `image` (static). */
export function mapRuntimeAddress(
  address: bigint,
  image: BinaryImage,
  options: MapOptions,
): AddressMapping {
  const runtime = hex(address);
  if (options.mappings.length > 0) {
    const mapping = options.mappings.find((m) =>
      BigInt(m.start) <= address && address < BigInt(m.end)
    );
    if (!mapping) {
      return unmapped(runtime, `No recorded mapping contains ${runtime}.`);
    }
    if (!mapping.path || !options.modulePaths.includes(mapping.path)) {
      return {
        ...unmapped(
          runtime,
          `${runtime} lies in ${mapping.path ?? "anonymous memory"}, not in the open file (${
            options.modulePaths.join(", ")
          }).`,
        ),
        module: mapping.path,
        mapping,
      };
    }
    const fileOffset = Number(address - BigInt(mapping.start) + BigInt(mapping.offset));
    const fileBase = options.mappings
      .filter((m) => m.path === mapping.path)
      .reduce(
        (
          low,
          m,
        ) => (BigInt(m.start) - BigInt(m.offset) < low ? BigInt(m.start) - BigInt(m.offset) : low),
        BigInt(mapping.start) - BigInt(mapping.offset),
      );
    const mapped = offsetToAddress(image, fileOffset);
    if (mapped === null) {
      return {
        runtime_address: runtime,
        static_address: null,
        method: "unmapped",
        confidence: "derived",
        module: mapping.path,
        mapping,
        file_offset: fileOffset,
        load_base: hex(fileBase),
        explanation: `${runtime} is file offset 0x${
          fileOffset.toString(16)
        } of ${mapping.path}, which no section of the open document maps.`,
      };
    }
    return {
      runtime_address: runtime,
      static_address: hex(mapped),
      method: "memory-map",
      confidence: "derived",
      module: mapping.path,
      mapping,
      file_offset: fileOffset,
      load_base: hex(fileBase),
      explanation:
        `${runtime} lies in the recorded mapping ${mapping.start}-${mapping.end} of ${mapping.path} at file offset ${mapping.offset}, so it is file offset 0x${
          fileOffset.toString(16)
        }, which the section table places at ${hex(mapped)}.`,
    };
  }
  if (options.loadBase !== undefined) {
    const value = address - options.loadBase;
    return {
      runtime_address: runtime,
      static_address: value >= 0n ? hex(value) : null,
      method: "load-base",
      confidence: "inferred",
      module: null,
      mapping: null,
      file_offset: null,
      load_base: hex(options.loadBase),
      explanation: `The capture recorded no memory map: ${runtime} minus the given load base ${
        hex(options.loadBase)
      } assumes the file's first segment is linked at 0 (true for common PIE files).`,
    };
  }
  return {
    runtime_address: runtime,
    static_address: runtime,
    method: "identity",
    confidence: "inferred",
    module: null,
    mapping: null,
    file_offset: null,
    load_base: null,
    explanation:
      `The capture recorded no memory map and no load base was given: ${runtime} is taken as a static address, which holds only for a non-PIE executable.`,
  };
}

function unmapped(runtime: string, explanation: string): AddressMapping {
  return {
    runtime_address: runtime,
    static_address: null,
    method: "unmapped",
    confidence: "derived",
    module: null,
    mapping: null,
    file_offset: null,
    load_base: null,
    explanation,
  };
}

function hex(value: bigint): string {
  return `0x${value.toString(16)}`;
}
