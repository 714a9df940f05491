import assert from "node:assert/strict";
import { canonicalJson, sha256Hex } from "../src/core/canonical_json.ts";
import { compareCodePoints } from "../src/core/completion.ts";
import {
  closeArchiveDirectories,
  type VisitCounter,
} from "../src/apps/artifacts/archive_directories.ts";
import type { ArchiveMember } from "../src/apps/artifacts/scan_record.ts";
import { artifactId } from "../src/apps/artifacts/ids.ts";

/**
 * An archive's directory tree: `count` directories, ten to a parent, three
 * levels deep, each holding two files and a symlink, listed in archive order
 * (a directory before its contents).
 */
function tree(count: number): { directories: string[]; members: ArchiveMember[] } {
  const directories: string[] = [];
  const members: ArchiveMember[] = [];
  for (let i = 0; i < count; i++) {
    const path = i < 10
      ? `pkg/d${i}`
      : i < 100
      ? `pkg/d${i % 10}/e${i}`
      : `pkg/d${i % 10}/e${10 + (i % 90)}/f${i}`;
    directories.push(path);
    members.push(
      {
        logicalPath: `${path}/a.txt`,
        artifact_id: artifactId(sha256Hex(`a${i}`)),
        entry_kind: "file",
      },
      {
        logicalPath: `${path}/b.so`,
        artifact_id: artifactId(sha256Hex(`b${i % 7}`)),
        entry_kind: "file",
      },
      {
        logicalPath: `${path}/link`,
        artifact_id: null,
        entry_kind: "symlink",
        link_target: "a.txt",
      },
    );
  }
  return { directories, members };
}

/** The definition, computed the slow way: each directory lists every member directly inside it. */
function expectedDigests(
  directories: string[],
  members: ArchiveMember[],
): Map<string, string> {
  const digests = new Map<string, string>();
  const all = [...members];
  const order = [...directories].sort((a, b) => b.split("/").length - a.split("/").length);
  for (const path of order) {
    const listing = all
      .filter((m) =>
        m.logicalPath.startsWith(`${path}/`) &&
        !m.logicalPath.slice(path.length + 1).includes("/")
      )
      .map((m) => ({
        name: m.logicalPath.slice(path.length + 1),
        artifact_id: m.artifact_id,
        entry_kind: m.entry_kind,
        ...(m.link_target === undefined ? {} : { link_target: m.link_target }),
      }))
      .sort((a, b) => compareCodePoints(a.name, b.name));
    const sha256 = sha256Hex(canonicalJson(listing));
    digests.set(path, sha256);
    all.push({ logicalPath: path, artifact_id: artifactId(sha256), entry_kind: "directory" });
  }
  return digests;
}

Deno.test("closeArchiveDirectories() gives each directory the digest of its direct members, subdirectories included", () => {
  const { directories, members } = tree(300);
  const closed = closeArchiveDirectories(directories, members);
  const expected = expectedDigests(directories, members);
  assert.equal(closed.length, directories.length);
  for (const directory of closed) {
    assert.equal(directory.logicalPath, directories[directory.index]);
    assert.equal(directory.sha256, expected.get(directory.logicalPath), directory.logicalPath);
    assert.equal(directory.artifactId, artifactId(directory.sha256));
  }
  // Deepest first: no directory is closed before one below it.
  const depths = closed.map((d) => d.logicalPath.split("/").length);
  assert.deepEqual(depths, [...depths].sort((a, b) => b - a));
});

Deno.test("closeArchiveDirectories() work grows linearly: 3,000 directories cost at most 2.2x 1,500", () => {
  const visits = (count: number): number => {
    const { directories, members } = tree(count);
    const counter: VisitCounter = { visits: 0 };
    closeArchiveDirectories(directories, members, counter);
    return counter.visits;
  };
  const half = visits(1_500);
  const full = visits(3_000);
  assert.ok(half >= 1_500 * 3, `every member is looked at (${half} visits)`);
  assert.ok(
    full / half <= 2.2,
    `3,000 directories took ${full} member visits against ${half} for 1,500 (${
      (full / half).toFixed(2)
    }x)`,
  );
});
