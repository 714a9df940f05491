/**
 * Directory entries inside an archive: each one's digest is that of the
 * listing of its direct members (files, links, and subdirectories by their
 * own digest), as a directory on disk is. Members are grouped by parent once,
 * so closing the directories is linear in members and directories.
 *
 * @module
 */

import { sha256Hex } from "../../core/canonical_json.ts";
import { compareCodePoints } from "../../core/completion.ts";
import { artifactId } from "./ids.ts";
import { depthOf } from "./member_names.ts";
import type { ArchiveMember } from "./scan_record.ts";
import { pushTo } from "../../core/multimap.ts";

/** One entry of a directory's listing, the object its digest is computed over. */
export interface ListingEntry {
  artifact_id: string | null;
  entry_kind: string;
  link_target?: string;
  name: string;
}

/**
 * A listing entry with its keys created in RFC 8785 order (`artifact_id`,
 * `entry_kind`, `link_target`, `name`), so that `JSON.stringify` of a listing
 * of them is already its canonical JSON.
 */
export function listingEntry(
  name: string,
  artifactId: string | null,
  entryKind: string,
  linkTarget?: string,
): ListingEntry {
  return linkTarget === undefined
    ? { artifact_id: artifactId, entry_kind: entryKind, name }
    : { artifact_id: artifactId, entry_kind: entryKind, link_target: linkTarget, name };
}

/**
 * The SHA-256 of a directory's listing: of its canonical JSON, written in
 * one native pass (the entries are made by {@linkcode listingEntry}).
 */
export function listingSha256(listing: readonly ListingEntry[]): string {
  return sha256Hex(JSON.stringify(listing));
}

/** One directory entry's digest. */
export interface ClosedDirectory {
  /** The directory's index in the list given. */
  index: number;
  logicalPath: string;
  sha256: string;
  artifactId: string;
}

/** Counts the member records looked at, for tests that bound the work. */
export interface VisitCounter {
  visits: number;
}

/** The logical path of the directory a member lies directly in ("" at the top). */
function parentOf(logicalPath: string): string {
  const slash = logicalPath.lastIndexOf("/");
  return slash < 0 ? "" : logicalPath.slice(0, slash);
}

/**
 * The digest of every directory entry of one archive, deepest first (so a
 * directory's listing includes its subdirectories' digests), in that order.
 * A directory's listing holds its direct members in archive order, then its
 * subdirectories in the order they were closed, sorted by name.
 */
export function closeArchiveDirectories(
  directories: readonly string[],
  members: readonly ArchiveMember[],
  counter?: VisitCounter,
): ClosedDirectory[] {
  const byParent = new Map<string, ArchiveMember[]>();
  const file = (member: ArchiveMember): void => {
    pushTo(byParent, parentOf(member.logicalPath), member);
  };
  for (const member of members) {
    if (counter) counter.visits++;
    file(member);
  }
  const order = directories
    .map((logicalPath, index) => ({ logicalPath, index, depth: depthOf(logicalPath) }))
    .sort((a, b) => b.depth - a.depth);
  const closed: ClosedDirectory[] = [];
  for (const { logicalPath, index } of order) {
    const prefixLength = logicalPath.length + 1;
    const direct = (byParent.get(logicalPath) ?? [])
      .map((m) => {
        if (counter) counter.visits++;
        return listingEntry(
          m.logicalPath.slice(prefixLength),
          m.artifact_id,
          m.entry_kind,
          m.link_target,
        );
      })
      .sort((a, b) => compareCodePoints(a.name, b.name));
    const sha256 = listingSha256(direct);
    const id = artifactId(sha256);
    closed.push({ index, logicalPath, sha256, artifactId: id });
    if (counter) counter.visits++;
    file({ logicalPath, artifact_id: id, entry_kind: "directory" });
  }
  return closed;
}
