/**
 * The notes a scan puts on a container occurrence whose members it did not
 * all read (a limit that stopped the walk inside it, a damaged or
 * undecodable stream, max_depth, a directory listing cut short), and how a
 * comparison recognises them: a path missing under such a container may
 * exist, so it is unknown rather than added or removed.
 *
 * @module
 */

/** The note on a container whose walk a limit stopped. */
export function notFullyTraversedNote(reason: string): string {
  return `Not fully traversed: ${reason}`;
}

/** The note on a container that could not be parsed or decoded to its end. */
export function damagedNote(format: string, reason: string): string {
  return `Damaged ${format}: ${reason}`;
}

/**
 * The note on a member decoded from a compressed stream that then failed its
 * integrity check: its bytes were read, but some decoded byte is wrong.
 */
export function failedCheckNote(containerPath: string, reason: string): string {
  return `Decoded from a stream that then failed its integrity check (${containerPath}: ${reason}): some decoded byte is wrong and which is not known, so this sha256 is of the bytes as decoded, not confirmed as the original's.`;
}

const CODECS = new Set(["gzip", "deflate", "xz", "zstd", "bzip2"]);

/**
 * Whether a decoder's error is a failed integrity check of bytes it already
 * produced (a CRC-32, length or content checksum that did not match), rather
 * than data it could not decode or input that ended early.
 */
export function isFailedCheck(error: { format: string; reason: string }): boolean {
  return CODECS.has(error.format) &&
    /\b(data|length) check\b|\bcrc(?:32)?\b|checksum/i.test(error.reason);
}

/**
 * The scan-wide note on members a later member of the same path shadowed (a
 * tar appended to, a zip with a name twice): their content is not listed.
 */
export function shadowedNote(count: number, firstPath: string): string {
  return `${count} member${
    count === 1 ? " was" : "s were"
  } shadowed by a later member with the same path (first: ${firstPath}); only the later one of each path is listed, as extraction leaves it: the earlier ones' content is neither listed nor compared.`;
}

/** Whether an inventory's note is a {@linkcode shadowedNote}. */
export function isShadowedNote(note: string): boolean {
  return /^\d+ members? (?:was|were) shadowed by a later member with the same path /.test(note);
}

/** The integrity checks a compressed stream carries that this reader verifies. */
export type StreamCheck = "gzip-crc32" | "gzip-isize" | "bzip2-crc32" | "zstd-checksum";

/**
 * Which check of a compressed stream a decoder's error is the failure of
 * (the gzip trailer's CRC-32 or length, bzip2's CRC-32, zstd's content
 * checksum), or null when it is not one (xz's decoder does not tell a failed
 * check from corrupt data), with where the expected value is declared.
 */
export function failedStreamCheck(
  error: { format: string; reason: string },
): { check: StreamCheck; declared: string } | null {
  if (!isFailedCheck(error)) return null;
  switch (error.format) {
    case "gzip":
      return /length/i.test(error.reason)
        ? { check: "gzip-isize", declared: "gzip trailer (ISIZE)" }
        : { check: "gzip-crc32", declared: "gzip trailer (CRC-32)" };
    case "bzip2":
      return { check: "bzip2-crc32", declared: "bzip2 block and stream CRC-32" };
    case "zstd":
      return { check: "zstd-checksum", declared: "zstd frame content checksum" };
    default:
      return null;
  }
}

/** The note on a container max_depth keeps closed. */
export function maxDepthNote(format: string, depth: number, maxDepth: number): string {
  return `A ${format} archive at nesting depth ${depth}: max_depth (${maxDepth}) stops descent.`;
}

/** The note on content whose own bytes could not be read to the end. */
export function notFullyReadNote(reason: string): string {
  return `Content not fully read: ${reason}`;
}

/** The note on a directory with more names than max_entries: the rest were not listed. */
export function truncatedListingNote(logicalPath: string, maxEntries: number): string {
  return `${logicalPath} holds more than max_entries (${maxEntries}) names; only that many were listed.`;
}

/** The note on a directory that could not be listed. */
export function unlistedNote(logicalPath: string, reason: string): string {
  return `Cannot list ${logicalPath}: ${reason}`;
}

const UNREAD = [
  /^Cannot list /,
  / holds more than max_entries \(\d+\) names; only that many were listed\.$/,
  /^Not fully traversed: /,
  /^Damaged [^:]+: /,
  /^A \S+ archive at nesting depth \d+: max_depth \(\d+\) stops descent\.$/,
  /^Content not fully read: /,
];

/**
 * Why the members of a container occurrence may not all be listed: the
 * first of its notes saying its members were not all read, or `null`.
 */
export function unreadMembersReason(occurrence: { limitations: readonly string[] }): string | null {
  return occurrence.limitations.find((note) => UNREAD.some((pattern) => pattern.test(note))) ??
    null;
}
