/**
 * Content classification from a file's first bytes and its name: executable
 * formats (ELF, PE, Mach-O and universal Mach-O, WebAssembly), containers
 * the artifact readers open (tar, zip, ar, gzip, xz, zstd, bzip2) with their
 * flavours (Debian package, jar, apk, wheel, …), scripts, text and data.
 *
 * @module
 */

import type { ByteSource } from "./byte_source.ts";
import { detectCompression } from "./compression.ts";
import { isTarHeader } from "./tar.ts";
import { endsWithZipDirectory } from "./zip.ts";
import { readHeaders } from "../formats/pe/headers.ts";
import type { PeDataDirectory } from "../formats/pe/model.ts";
import { PeReader } from "../formats/pe/reader.ts";
import { DIR_CERTIFICATE } from "../formats/pe/constants.ts";

/** What a file's content is. */
export type ContentKind =
  | "elf"
  | "pe"
  | "mach-o"
  | "mach-o-universal"
  | "wasm"
  | "script"
  | "text"
  | "data";

/** Containers the artifact readers can open. */
export type ContainerFormat = "tar" | "zip" | "ar" | "gzip" | "xz" | "zstd" | "bzip2";

/** The result of {@linkcode sniff}. */
export interface Sniffed {
  /** What the content is (`"data"` for containers). */
  kind: ContentKind;
  /** The container format, or `null`. */
  container: ContainerFormat | null;
  /**
   * A finer label: `"deb"` (an ar whose first member is `debian-binary`),
   * `"static-library"` (an ar named `*.a` or opening with a symbol table),
   * `"npm"` (a tar whose first entry lies under `package/`, as `npm pack`
   * writes; the `.tgz` itself is plain gzip), for the zip family by name
   * `"jar"`, `"war"`, `"ear"`, `"apk"`, `"aab"`, `"aar"`, `"whl"`, `"egg"`,
   * `"ipa"`, `"nupkg"`, `"xpi"`, `"vsix"`, `"java-class"` for class files, and
   * `"self-extractor"` for an executable followed by a zip ({@linkcode sniffSource}).
   */
  flavour: string | null;
  /** Whether the content is a binary executable format (ELF, PE, Mach-O, WebAssembly). */
  executableFormat: boolean;
}

const ZIP_FLAVOURS: Record<string, string> = {
  jar: "jar",
  war: "war",
  ear: "ear",
  apk: "apk",
  aab: "aab",
  aar: "aar",
  whl: "whl",
  egg: "egg",
  ipa: "ipa",
  nupkg: "nupkg",
  xpi: "xpi",
  vsix: "vsix",
};

const latin1 = new TextDecoder("latin1");

function extension(name: string): string {
  const base = name.slice(name.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return dot <= 0 ? "" : base.slice(dot + 1).toLowerCase();
}

function startsWith(head: Uint8Array, bytes: number[], at = 0): boolean {
  if (head.byteLength < at + bytes.length) return false;
  for (let i = 0; i < bytes.length; i++) if (head[at + i] !== bytes[i]) return false;
  return true;
}

const be32 = (b: Uint8Array, i: number): number =>
  ((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0;
const le32 = (b: Uint8Array, i: number): number =>
  (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;

function result(
  kind: ContentKind,
  container: ContainerFormat | null = null,
  flavour: string | null = null,
): Sniffed {
  const executableFormat = kind === "elf" || kind === "pe" || kind === "mach-o" ||
    kind === "mach-o-universal" || kind === "wasm";
  return { kind, container, flavour, executableFormat };
}

/**
 * Classifies content from its first bytes and its name.
 *
 * Tar needs the ustar magic at offset 257 or a valid v7 header checksum, or
 * (an empty archive, which GNU tar lists as such) a name ending in `.tar`
 * and two zero blocks at the start; PE
 * needs `MZ` and, when the PE header offset lies inside `head`, the `PE\0\0`
 * signature there; `0xCAFEBABE` is a universal Mach-O when the architecture
 * count is small (1–30), a Java class file (`"data"`, flavour
 * `"java-class"`) when the major version is 45 or more; text is valid UTF-8
 * without NUL (a sequence cut at the end of `head` is allowed).
 *
 * @param head The first bytes (up to 4096 are used).
 * @param name The file's name or path (for the zip family's flavour).
 * @returns The classification.
 */
export function sniff(head: Uint8Array, name: string): Sniffed {
  head = head.subarray(0, 4096);
  if (startsWith(head, [0x7f, 0x45, 0x4c, 0x46])) return result("elf");
  if (startsWith(head, [0x00, 0x61, 0x73, 0x6d]) && head.byteLength >= 8 && le32(head, 4) === 1) {
    return result("wasm");
  }
  if (head.byteLength >= 4) {
    const magic = be32(head, 0);
    if (
      magic === 0xfeedface || magic === 0xfeedfacf || magic === 0xcefaedfe || magic === 0xcffaedfe
    ) {
      return result("mach-o");
    }
    if (magic === 0xcafebabe || magic === 0xcafebabf) {
      if (head.byteLength >= 8) {
        const count = be32(head, 4);
        if (count >= 1 && count <= 30) return result("mach-o-universal");
        const major = (head[6]! << 8) | head[7]!;
        if (magic === 0xcafebabe && major >= 45) return result("data", null, "java-class");
      }
    }
  }
  if (startsWith(head, [0x4d, 0x5a])) {
    if (head.byteLength >= 0x40) {
      const peOffset = le32(head, 0x3c);
      if (peOffset + 4 <= head.byteLength) {
        if (startsWith(head, [0x50, 0x45, 0, 0], peOffset)) return result("pe");
      } else if (peOffset >= 0x40 && peOffset < 0x10000000 && head.byteLength >= 4096) {
        return result("pe"); // the PE header lies beyond the bytes given
      }
    }
  }

  const compression = detectCompression(head);
  if (compression) return result("data", compression);
  if (
    startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06]) ||
    startsWith(head, [0x50, 0x4b, 0x07, 0x08])
  ) {
    return result("data", "zip", ZIP_FLAVOURS[extension(name)] ?? null);
  }
  if (latin1.decode(head.subarray(0, 8)) === "!<arch>\n") {
    const first = latin1.decode(head.subarray(8, 24)).trimEnd();
    const flavour = first === "debian-binary" || first === "debian-binary/"
      ? "deb"
      : extension(name) === "a" || first === "/" || first === "/SYM64/" ||
          first.startsWith("__.SYMDEF")
      ? "static-library"
      : null;
    return result("data", "ar", flavour);
  }
  if (head.byteLength >= 512) {
    const magic = latin1.decode(head.subarray(257, 263));
    if (magic === "ustar\0" || magic === "ustar " || isTarHeader(head)) {
      const firstName = latin1.decode(head.subarray(0, 100));
      return result("data", "tar", firstName.startsWith("package/") ? "npm" : null);
    }
  }
  if (
    extension(name) === "tar" && head.byteLength >= 1024 && !head.subarray(0, 1024).some(Boolean)
  ) {
    return result("data", "tar"); // an empty archive: its end marker (two zero blocks) and nothing else
  }
  if (startsWith(head, [0x23, 0x21])) return result("script");
  if (head.byteLength > 0 && !head.includes(0)) {
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
      return result("text");
    } catch {
      // not UTF-8
    }
  }
  return result("data");
}

/**
 * {@linkcode sniff} for content with random access (a file): what the first
 * bytes name, or, when they name no container, a zip when the content ends
 * with a zip's end record (a zip after a prefix, as `unzip` reads it: a
 * script or other data, or an executable, which stays what it is and carries
 * the zip: a self-extractor, flavour `self-extractor`; a signed PE's zip ends
 * where its certificate table begins).
 */
export async function sniffSource(
  head: Uint8Array,
  name: string,
  source: ByteSource,
): Promise<Sniffed> {
  const sniffed = sniff(head, name);
  if (sniffed.container !== null) return sniffed;
  if (!await endsWithZipDirectory(source)) {
    // A signed PE self-extractor: its certificate table follows the zip, to the end of the file.
    const certificate = sniffed.kind === "pe" ? peCertificateTable(head, source.size) : null;
    if (certificate === null || !await endsWithZipDirectory(source, certificate)) return sniffed;
  }
  if (sniffed.executableFormat) return { ...sniffed, container: "zip", flavour: "self-extractor" };
  return result("data", "zip", ZIP_FLAVOURS[extension(name)] ?? null);
}

/**
 * Where a PE's certificate table (the security data directory, a file offset) starts, when the
 * headers in `head` place it at the very end of a `size`-byte file; else null.
 */
function peCertificateTable(head: Uint8Array, size: number): number | null {
  let directories: PeDataDirectory[];
  try {
    directories = readHeaders(new PeReader(head, 0)).dataDirectories;
  } catch {
    return null; // headers past the first bytes, or damaged: no certificate to go by
  }
  const table = directories.find((d) => d.index === DIR_CERTIFICATE);
  return table !== undefined && table.rva > 0 && table.size > 0 && table.rva + table.size === size
    ? table.rva
    : null;
}
