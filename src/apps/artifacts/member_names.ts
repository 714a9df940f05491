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

/** Escapes one archive member name into safe path segments. */
export function escapeMemberName(name: ArchiveEntryName): {
  segments: string[];
  hostile: boolean;
  reason: string;
} {
  const reasons: string[] = [];
  let text = name.text;
  if (!name.validUtf8) reasons.push("not valid UTF-8");
  if (text.includes("\0")) reasons.push("contains NUL");
  if (text.includes("\\")) reasons.push("contains a backslash");
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
    segments.push(
      segment.replace(
        // deno-lint-ignore no-control-regex
        /[%\0\\\u0001-\u001f\u007f\ufffd]/g,
        (c: string) =>
          c === "\ufffd"
            ? "%EF%BF%BD"
            : "%" + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0"),
      ),
    );
  }
  const hostile = reasons.length > 0;
  return { segments, hostile, reason: reasons.join(", ") };
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
