/**
 * Logical paths of members: joining segments, and escaping hostile archive
 * member names into safe paths.
 *
 * @module
 */

import type { ArchiveEntryName } from "./tar.ts";

/** The logical path of a child named `name` under `parent` ("." for the root). */
export function childLogicalPath(parent: string, name: string): string {
  return parent === "." ? name : `${parent}/${name}`;
}

/** The last non-empty segment of a slash-separated path. */
export function lastSegment(path: string): string {
  const parts = path.split("/").filter((p) => p !== "");
  return parts[parts.length - 1] ?? path;
}

/** How many segments a logical path has. */
export function depthOf(path: string): number {
  return path.split("/").length;
}

/**
 * Characters a logical path never holds as they are: `%` (the escape itself),
 * backslashes, controls (C0, DEL, C1), format characters (zero-width,
 * bidirectional and tag characters, the byte-order mark: all that the output
 * sanitizer strips, see `firstInvisible()`), U+FFFD, and the lone surrogates
 * U+DC80–U+DCFF that stand for the bytes of a name that are not valid UTF-8.
 */
const ESCAPED = /[%\\\p{Cc}\p{Cf}\ufffd\udc80-\udcff]|[\u{E0000}-\u{E007F}]/gu;
const NEEDS_LOOK = new RegExp(ESCAPED.source, "u");
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0001-\u001f\u007f-\u009f]/u;
const INVISIBLE = /\p{Cf}|[\u{E0000}-\u{E007F}]/u;
const utf8 = new TextEncoder();

/** `%XX` for one byte. */
function percent(byte: number): string {
  return "%" + byte.toString(16).toUpperCase().padStart(2, "0");
}

/** `%XX` for each UTF-8 byte of a character, or for the byte a lone surrogate stands for. */
function escapeCharacter(c: string): string {
  const unit = c.charCodeAt(0);
  if (c.length === 1 && unit >= 0xdc80 && unit <= 0xdcff) return percent(unit - 0xdc00);
  let out = "";
  for (const byte of utf8.encode(c)) out += percent(byte);
  return out;
}

/**
 * Bytes decoded as UTF-8 where they are valid, each other byte standing as
 * the lone surrogate U+DC00 + byte (as Python's `surrogateescape` does), so
 * that no two names decode alike.
 */
function surrogateEscaped(bytes: Uint8Array): string {
  let text = "";
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    const length = lead < 0x80
      ? 1
      : lead >= 0xc2 && lead <= 0xdf
      ? 2
      : lead >= 0xe0 && lead <= 0xef
      ? 3
      : lead >= 0xf0 && lead <= 0xf4
      ? 4
      : 0;
    let point = length === 1 ? lead : lead & (0x7f >> length);
    let valid = length > 0 && i + length <= bytes.length;
    for (let k = 1; valid && k < length; k++) {
      const next = bytes[i + k]!;
      if ((next & 0xc0) !== 0x80) valid = false;
      point = (point << 6) | (next & 0x3f);
    }
    if (
      valid &&
      ((length === 3 && (point < 0x800 || (point >= 0xd800 && point <= 0xdfff))) ||
        (length === 4 && (point < 0x10000 || point > 0x10ffff)))
    ) valid = false;
    if (valid) {
      text += String.fromCodePoint(point);
      i += length;
    } else {
      text += String.fromCharCode(0xdc00 + lead);
      i++;
    }
  }
  return text;
}

/**
 * A link target as text: exactly as stored when its bytes are valid UTF-8
 * (or a code page renders them); otherwise each byte that is not valid UTF-8
 * becomes `%XX` of itself and `%` becomes `%25`, so two different targets
 * never read the same (a decoder would turn both into U+FFFD).
 */
export function linkTargetText(target: ArchiveEntryName): { text: string; escaped: boolean } {
  if (target.exact) return { text: target.text, escaped: false };
  return {
    text: surrogateEscaped(target.bytes).replace(/[%\udc80-\udcff]/gu, escapeCharacter),
    escaped: true,
  };
}

/** The note on a link whose target is not valid UTF-8 (see {@linkcode linkTargetText}). */
export const ESCAPED_TARGET_NOTE =
  "Its link target is not valid UTF-8: each byte that is not is written %XX, and % as %25.";

/**
 * Escapes one archive member name into safe path segments. Escaping keeps
 * every name's identity: `%` and each character a path never holds as it is
 * (controls, invisible characters, U+FFFD, backslashes) become `%XX` of their
 * UTF-8 bytes, and a byte that is not valid UTF-8 becomes `%XX` of itself, so
 * two names share a path only when they name the same file (`./a`, `a` and
 * `/a` do). Names that needed more than `%` escaped are hostile.
 */
export function escapeMemberName(name: ArchiveEntryName): {
  segments: string[];
  hostile: boolean;
  reason: string;
} {
  const reasons: string[] = [];
  let text = name.exact ? name.text : surrogateEscaped(name.bytes);
  if (!name.validUtf8) reasons.push("not valid UTF-8");
  if (NEEDS_LOOK.test(text)) {
    if (text.includes("\0")) reasons.push("contains NUL");
    if (text.includes("\\")) reasons.push("contains a backslash");
    const control = CONTROL.exec(text);
    if (control) reasons.push(`contains a control character (${codePoint(control[0])})`);
    const invisible = INVISIBLE.exec(text);
    if (invisible) reasons.push(`contains an invisible character (${codePoint(invisible[0])})`);
  }
  if (text.startsWith("/")) reasons.push("absolute");
  text = text.replace(/^\.\//, "");
  const raw = text.split("/");
  const segments: string[] = [];
  for (const segment of raw) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (!reasons.includes("contains ..")) reasons.push("contains ..");
      segments.push("%2E%2E");
      continue;
    }
    segments.push(segment.replace(ESCAPED, escapeCharacter));
  }
  const hostile = reasons.length > 0;
  return { segments, hostile, reason: reasons.join(", ") };
}

/** How the note on a member with a hostile name begins (the reason follows). */
export const HOSTILE_NOTE = "Hostile member name escaped: ";

/** `U+XXXX` for a character. */
function codePoint(c: string): string {
  return "U+" + c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
}

/**
 * The logical path of the `instance`-th (from 2) member of an ar archive
 * named like an earlier one: the name's path with `%%` and the instance
 * appended. Escaping never writes `%%` (its `%` is always followed by two
 * hex digits), so no member's own name has this path.
 */
export function arInstancePath(path: string, instance: number): string {
  return `${path}%%${instance}`;
}

/** The note on such a member. */
export function arInstanceNote(name: string, instance: number): string {
  return `Member ${instance} named ${name} in this ar archive: ar keeps every member of a name (a linker reads them all, and \`ar xN ${instance} ARCHIVE ${name}\` extracts this one), so its logical path adds %%${instance} to the name.`;
}

/** The first 2 KiB of a name's bytes in hex. */
export function hexOf(bytes: Uint8Array): string {
  return [...bytes.subarray(0, 2048)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The name of the payload of a compressed stream called `name`. */
export function decompressedName(name: string, container: string): string {
  const lower = name.toLowerCase();
  if (lower.endsWith(".tgz")) return name.slice(0, -4) + ".tar";
  if (lower.endsWith(".txz")) return name.slice(0, -4) + ".tar";
  for (const ext of [".gz", ".xz", ".zst", ".zstd", ".bz2"]) {
    if (lower.endsWith(ext) && name.length > ext.length) return name.slice(0, -ext.length);
  }
  return `${name}.${container}-payload`;
}
