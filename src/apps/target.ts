/**
 * A loaded target: the bytes of an opened file, its content identity and
 * the parsed structure the providers read.
 *
 * @module
 */

import { basename } from "node:path";
import { sha256Hex } from "../core/canonical_json.ts";
import { ToolFailure } from "../core/errors.ts";
import type { EvidenceSubject } from "../core/evidence.ts";
import { type ElfImage, ElfParseError, isElf, parseElf } from "./elf.ts";
import type { TargetFile } from "./paths.ts";

/** An opened ELF target. */
export interface LoadedTarget {
  requestedPath: string;
  realPath: string;
  name: string;
  size: number;
  sha256: string;
  format: "elf";
  elf: ElfImage;
  subject: EvidenceSubject;
}

/** Identifies and parses a file; refuses formats no provider reads, with a clear message. */
export function loadTarget(file: TargetFile): LoadedTarget {
  const { bytes } = file;
  const name = basename(file.requestedPath);
  if (!isElf(bytes)) {
    const head = [...bytes.subarray(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join(" ");
    throw new ToolFailure(
      "invalid_request",
      bytes.length === 0
        ? `Cannot open ${file.requestedPath}: the file is empty.`
        : `Cannot open ${file.requestedPath}: not an ELF file (first bytes: ${head}). Supported formats: ELF.`,
      { action: "Open an ELF executable, shared library or object file." },
    );
  }
  let elf: ElfImage;
  try {
    elf = parseElf(bytes);
  } catch (error) {
    if (error instanceof ElfParseError) {
      throw new ToolFailure(
        "invalid_request",
        `Cannot open ${file.requestedPath}: ${error.message}`,
        {
          action: "The file is truncated or corrupted; open an intact copy.",
          details: error.offset === null ? {} : { offset: error.offset },
        },
      );
    }
    throw error;
  }
  const sha256 = sha256Hex(bytes);
  return {
    requestedPath: file.requestedPath,
    realPath: file.realPath,
    name,
    size: bytes.length,
    sha256,
    format: "elf",
    elf,
    subject: {
      name,
      digest: { sha256 },
      format: "elf",
      architecture: elf.architecture,
      local_path: file.realPath,
    },
  };
}

/** `0x` + lowercase hex. */
export function formatAddress(address: bigint): string {
  return `0x${address.toString(16)}`;
}
