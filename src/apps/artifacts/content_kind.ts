/**
 * What a member is, from its sniffed head: its format, media type, and for
 * binaries whether it is an executable, library or object, and for which
 * architecture.
 *
 * @module
 */

import type { ArtifactNode } from "./model.ts";
import type { Sniffed } from "./sniff.ts";

/** The node format of sniffed content. */
export function formatOf(sniffed: Sniffed): ArtifactNode["format"] {
  if (sniffed.container === "ar" && sniffed.flavour === "deb") return "deb";
  if (sniffed.container === "zip") {
    const flavour = sniffed.flavour;
    return flavour === "jar" || flavour === "apk" || flavour === "whl" || flavour === "ipa" ||
        flavour === "nupkg"
      ? flavour
      : "zip";
  }
  if (sniffed.container) return sniffed.container;
  if (sniffed.kind === "script" || sniffed.kind === "text" || sniffed.kind === "data") {
    return "file";
  }
  return sniffed.kind as ArtifactNode["format"];
}

/** The media type of sniffed content; null when none fits. */
export function mediaType(sniffed: Sniffed): string | null {
  switch (sniffed.container ?? sniffed.kind) {
    case "gzip":
      return "application/gzip";
    case "xz":
      return "application/x-xz";
    case "zstd":
      return "application/zstd";
    case "tar":
      return "application/x-tar";
    case "zip":
      return "application/zip";
    case "ar":
      return sniffed.flavour === "deb"
        ? "application/vnd.debian.binary-package"
        : "application/x-archive";
    case "wasm":
      return "application/wasm";
    case "text":
    case "script":
      return "text/plain";
    default:
      return null;
  }
}

const ELF_MACHINES: Record<number, string> = {
  3: "x86",
  62: "x86_64",
  40: "arm",
  183: "arm64",
  243: "riscv",
  8: "mips",
  20: "ppc",
  21: "ppc64",
  22: "s390",
};

/** Executable or library, and the architecture, from the first bytes of a binary. */
export function describeBinary(
  head: Uint8Array,
  sniffed: Sniffed,
  sliceKind: ArtifactNode["kind"] | null,
): { kind: ArtifactNode["kind"]; architecture: string | null } {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  try {
    if (sniffed.kind === "elf" && head.length >= 20) {
      const little = head[5] === 1;
      const is64 = head[4] === 2;
      const type = view.getUint16(16, little);
      const architecture = ELF_MACHINES[view.getUint16(18, little)] ?? null;
      if (type === 2) return { kind: "executable", architecture };
      if (type === 1) return { kind: "object", architecture };
      if (type === 3) {
        // A PIE has a program interpreter; a shared library normally does not.
        const phoff = is64 ? Number(view.getBigUint64(32, little)) : view.getUint32(28, little);
        const phentsize = view.getUint16(is64 ? 54 : 42, little);
        const phnum = view.getUint16(is64 ? 56 : 44, little);
        for (let i = 0; i < phnum; i++) {
          const at = phoff + i * phentsize;
          if (at + 4 > head.length) break;
          if (view.getUint32(at, little) === 3) return { kind: "executable", architecture };
        }
        return { kind: "dynamic-library", architecture };
      }
      return { kind: "unknown", architecture };
    }
    if (sniffed.kind === "pe" && head.length >= 0x40) {
      const pe = view.getUint32(0x3c, true);
      if (pe + 24 <= head.length) {
        const machine = view.getUint16(pe + 4, true);
        const characteristics = view.getUint16(pe + 22, true);
        const architecture = machine === 0x8664
          ? "x86_64"
          : machine === 0x14c
          ? "x86"
          : machine === 0xaa64
          ? "arm64"
          : null;
        return { kind: characteristics & 0x2000 ? "dynamic-library" : "executable", architecture };
      }
      return { kind: "executable", architecture: null };
    }
    if (sniffed.kind === "mach-o" && head.length >= 16) {
      const magic = view.getUint32(0, false);
      const little = magic === 0xcefaedfe || magic === 0xcffaedfe;
      const cpu = view.getUint32(4, little);
      const type = view.getUint32(12, little);
      const architecture = cpu === 0x01000007
        ? "x86_64"
        : cpu === 0x0100000c
        ? "arm64"
        : cpu === 7
        ? "x86"
        : cpu === 12
        ? "arm"
        : null;
      return {
        kind: type === 2
          ? "executable"
          : type === 6 || type === 8
          ? "dynamic-library"
          : type === 1
          ? "object"
          : "unknown",
        architecture,
      };
    }
    if (sniffed.kind === "mach-o-universal") {
      return { kind: sliceKind ?? "executable", architecture: null };
    }
    if (sniffed.kind === "wasm") return { kind: "object", architecture: "wasm32" };
  } catch {
    // A head too short for the fields: fall through.
  }
  if (sniffed.container) return { kind: "container", architecture: null };
  if (sniffed.kind === "script") return { kind: "script", architecture: null };
  return { kind: "resource", architecture: null };
}
