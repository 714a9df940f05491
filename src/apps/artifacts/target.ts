/**
 * Artifact targets: a directory or an archive file (tar, ar/deb, zip family,
 * gzip/xz/zstd/bzip2) opened as the session's target. Opening records the root's
 * content identity; every inventory re-verifies it.
 *
 * @module
 */

import { basename } from "node:path";
import { ToolFailure } from "../../core/errors.ts";
import type { BinarySubject as EvidenceSubject, SubjectFormat } from "../evidence.ts";
import { ioFailure, openVerified, type RootDirectory, RootFence } from "../../core/roots.ts";
import { verifiedSource } from "./byte_source.ts";
import {
  type ArtifactNode,
  type ArtifactSnapshot,
  LIMIT_BOUNDS,
  type TraversalLimits,
} from "./model.ts";
import { hashSource, scanArtifact, type ScanRoot } from "./scan.ts";
import { type Sniffed, sniffSource } from "./sniff.ts";

/** An opened artifact. */
export interface ArtifactTarget {
  kind: "directory" | "file";
  requestedPath: string;
  realPath: string;
  name: string;
  /** File size; for a directory, the bytes of its regular files. */
  size: number;
  /** The root's content digest (for a directory, the digest of its listing). */
  sha256: string;
  format: ArtifactNode["format"];
  subject: EvidenceSubject;
  /** Scans by their limits, so pages of one inventory project one snapshot. */
  snapshots: Map<string, ArtifactSnapshot>;
}

/** What a path under a root is, checked before anything is opened. */
export type ResolvedPath =
  | { kind: "directory"; requestedPath: string; realPath: string }
  | { kind: "archive"; requestedPath: string; realPath: string }
  | {
    kind: "file";
    requestedPath: string;
    realPath: string;
    /** What its first bytes (and, for a zip after a prefix, its last) say it is. */
    sniffed: Sniffed;
  };

/**
 * Resolves a requested path against the roots (lexically, then after
 * symlinks) and says whether it is a directory, an archive or another file.
 * An executable that carries a zip (a self-extractor) is a file unless
 * `options.executableArchive` asks for the archive.
 *
 * Requires `--allow-read` for the roots.
 */
export async function resolveTargetPath(
  requested: string,
  roots: readonly RootDirectory[],
  options: {
    /** An executable that carries an archive (a self-extractor) is that archive. */
    executableArchive?: boolean;
  } = {},
): Promise<ResolvedPath> {
  const fence = new RootFence(roots);
  const { requestedPath, realPath } = await fence.check(requested, {
    expected: "Pass the absolute path of a file or directory under an allowed root.",
  });
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(realPath);
  } catch (error) {
    throw ioFailure(error, requestedPath, roots);
  }
  if (info.isDirectory) return { kind: "directory", requestedPath, realPath };
  if (!info.isFile) {
    throw invalid(`${requestedPath} is not a regular file or directory (device, socket or FIFO).`);
  }
  let head: Uint8Array;
  // Opened through the fence: a FIFO or device swapped in is refused without blocking, and
  // a file that is not the one checked is refused.
  const source = verifiedSource(
    await openVerified({ requestedPath, realPath }, {
      admits: (path) => fence.admits(path),
      roots,
    }),
  );
  let sniffed: Sniffed;
  try {
    head = await source.read(0, Math.min(4096, source.size));
    sniffed = await sniffSource(head, basename(realPath), source);
  } catch (error) {
    throw ioFailure(error, requestedPath, roots);
  } finally {
    source.close();
  }
  return sniffed.container !== null && (!sniffed.executableFormat || options.executableArchive)
    ? { kind: "archive", requestedPath, realPath }
    : { kind: "file", requestedPath, realPath, sniffed };
}

/** Options of {@linkcode openArtifact}. */
export interface OpenArtifactOptions {
  /** Bounds of the identity scan of a directory (depth is always 0). @default LIMIT_BOUNDS */
  limits?: Readonly<TraversalLimits>;
  signal?: AbortSignal;
  onProgress?: (bytesRead: number, entries: number) => void | Promise<void>;
}

/**
 * Opens a directory or archive: records its content identity. A directory's
 * identity needs every file's digest, so opening one reads all of it (not the
 * insides of archives).
 */
export async function openArtifact(
  resolved: ResolvedPath,
  options: OpenArtifactOptions = {},
): Promise<ArtifactTarget> {
  const name = basename(resolved.realPath) || resolved.realPath;
  const root: ScanRoot = {
    kind: resolved.kind === "directory" ? "directory" : "file",
    realPath: resolved.realPath,
    name,
  };
  let sha256: string;
  let size: number;
  let format: ArtifactNode["format"];
  const limitations: string[] = [];
  if (root.kind === "directory") {
    const identityLimits: TraversalLimits = { ...(options.limits ?? LIMIT_BOUNDS), max_depth: 0 };
    const snapshot = await scanArtifact(root, {
      limits: identityLimits,
      signal: options.signal,
      onProgress: options.onProgress,
      identityOnly: true,
    });
    sha256 = snapshot.manifest.root_sha256;
    size = snapshot.bytes_read;
    format = "directory";
    if (!snapshot.manifest.complete) {
      limitations.push(...snapshot.limitations.slice(0, 20));
    }
  } else {
    const source = verifiedSource(
      await openVerified(resolved, {
        admits: (path) => path === resolved.realPath,
        roots: [{ path: resolved.realPath, realPath: resolved.realPath }],
      }),
    );
    try {
      size = source.size;
      sha256 = await hashSource(source, options.signal);
      const head = await source.read(0, Math.min(4096, source.size));
      const sniffed = await sniffSource(head, name, source);
      format = sniffed.container === "ar" && sniffed.flavour === "deb"
        ? "deb"
        : sniffed.container === "zip" && sniffed.flavour &&
            ["jar", "apk", "whl", "ipa", "nupkg"].includes(sniffed.flavour)
        ? sniffed.flavour as ArtifactNode["format"]
        : (sniffed.container ?? "file") as ArtifactNode["format"];
    } finally {
      source.close();
    }
  }
  return {
    kind: root.kind,
    requestedPath: resolved.requestedPath,
    realPath: resolved.realPath,
    name,
    size,
    sha256,
    format,
    subject: {
      name,
      digest: { sha256 },
      format: subjectFormat(format),
      architecture: null,
      local_path: resolved.realPath,
    },
    snapshots: new Map(),
  };
}

function subjectFormat(format: ArtifactNode["format"]): SubjectFormat {
  switch (format) {
    case "directory":
    case "zip":
    case "tar":
    case "ar":
    case "deb":
    case "gzip":
    case "xz":
    case "zstd":
      return format;
    case "jar":
    case "apk":
    case "whl":
    case "ipa":
    case "nupkg":
      return "zip";
    default:
      return "file";
  }
}

/** The key a snapshot is retained under. */
export function limitsKey(limits: TraversalLimits, integrity: string): string {
  return JSON.stringify([
    limits.max_entries,
    limits.max_total_bytes,
    limits.max_entry_bytes,
    limits.max_compression_ratio,
    limits.max_depth,
    limits.max_path_bytes,
    integrity,
  ]);
}

function invalid(message: string): ToolFailure {
  return new ToolFailure("invalid_request", message, {
    action: "Pass the absolute path of a file or directory under an allowed root.",
  });
}
