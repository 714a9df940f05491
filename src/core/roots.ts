/**
 * The root fence: the one place that decides whether a path a client names
 * lies under a directory the operator allowed. Every path-taking tool of every
 * workbench resolves its paths here before any other I/O touches them.
 *
 * Requires `--allow-read` for the roots.
 *
 * @module
 */

import { constants as fsConstants } from "node:fs";
import { type FileHandle, open as openHandle } from "node:fs/promises";
import { isAbsolute, normalize, resolve, sep } from "node:path";
import { ToolFailure } from "./errors.ts";
import { flagFor, permissionFailure } from "./permissions.ts";

/** An allowed root: as the operator named it, and resolved. */
export interface RootDirectory {
  /** The absolute, normalised path as given. */
  path: string;
  /** Its real path (symlinks resolved); null when it could not be resolved. */
  realPath: string | null;
}

/** A path that passed the fence. */
export interface FencedPath {
  /** The path as the caller gave it (normalised). */
  requestedPath: string;
  /** The resolved real path, inside a root. */
  realPath: string;
}

/** Resolves operator-named roots (missing or unreadable ones admit nothing). */
export function resolveRoots(roots: readonly string[]): RootDirectory[] {
  return roots.map((root) => {
    const path = normalize(resolve(root));
    try {
      return { path, realPath: Deno.realPathSync(path) };
    } catch {
      // Missing, or no read permission: such a root admits nothing.
      return { path, realPath: null };
    }
  });
}

/** Whether `path` is `root` or lies below it (a sibling such as `/rootX` is not). */
export function isWithin(path: string, root: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix);
}

/** The refusal for a path outside every root (naming what it resolves to, if that differs). */
export function outsideRoots(
  path: string,
  roots: readonly RootDirectory[],
  realPath?: string,
): ToolFailure {
  const via = realPath && realPath !== path ? ` (it resolves to ${realPath})` : "";
  const names = roots.map((root) => root.path);
  return new ToolFailure(
    "outside_approved_root",
    `${path}${via} is outside the allowed roots: ${names.join(", ")}.`,
    {
      action:
        "Open a file under an allowed root, or restart the server with another --root (and matching --allow-read).",
      details: { roots: names },
    },
  );
}

/** A failed read of a fenced path as a tool failure, naming the root's grant when permission is missing. */
export function ioFailure(
  error: unknown,
  path: string,
  roots: readonly RootDirectory[],
): ToolFailure {
  // Name the root's grant, which covers every path under it, rather than the one file.
  const root = roots.find((r) => isWithin(path, r.path));
  const permission = permissionFailure(error, root ? flagFor("read", root.path) : undefined);
  if (permission) return permission;
  if (error instanceof Deno.errors.NotFound) {
    return new ToolFailure("target_unavailable", `No such file: ${path}.`, {
      action: "Check the path (binary_session or workspace_status lists the allowed roots).",
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ToolFailure("target_unavailable", `Cannot read ${path}: ${message}.`);
}

/** Options of {@linkcode RootFence.check}. */
export interface FenceCheckOptions {
  /** What the remediation of a malformed path asks for. @default "Pass the absolute path of a regular file under an allowed root." */
  expected?: string;
}

/**
 * The fence over the operator's roots. One instance per server; lent to
 * every workbench.
 */
export class RootFence {
  /** The roots, in the order the operator gave them. */
  readonly roots: readonly RootDirectory[];

  /** A fence over already resolved roots. */
  constructor(roots: readonly RootDirectory[]) {
    this.roots = Object.freeze([...roots]);
  }

  /** Whether a resolved real path lies inside a root. */
  admits(realPath: string): boolean {
    return this.roots.some((root) => root.realPath !== null && isWithin(realPath, root.realPath));
  }

  /**
   * Checks a requested path: absolute, no NUL, lexically under a root, and
   * under a root again after symlinks are resolved. Refusals are tool
   * failures (`invalid_request`, `outside_approved_root`, `target_unavailable`,
   * `permission_required`).
   */
  async check(requested: string, options: FenceCheckOptions = {}): Promise<FencedPath> {
    const invalid = (message: string): ToolFailure =>
      new ToolFailure("invalid_request", message, {
        action: options.expected ??
          "Pass the absolute path of a regular file under an allowed root.",
      });
    if (requested.includes("\0")) throw invalid("The path contains a NUL character.");
    if (!isAbsolute(requested)) {
      throw invalid(`The path must be absolute; got ${JSON.stringify(requested)}.`);
    }
    if (this.roots.length === 0) {
      throw new ToolFailure(
        "outside_approved_root",
        "No root is configured, so no target can be opened.",
        {
          action:
            "Restart the server with --root DIR (and --allow-read=DIR) for the directories to investigate.",
          restartRequired: true,
        },
      );
    }
    const requestedPath = normalize(requested);
    const lexical = (root: RootDirectory): boolean =>
      isWithin(requestedPath, root.path) ||
      (root.realPath !== null && isWithin(requestedPath, root.realPath));
    if (!this.roots.some(lexical)) throw outsideRoots(requestedPath, this.roots);
    let realPath: string;
    try {
      realPath = await Deno.realPath(requestedPath);
    } catch (error) {
      throw ioFailure(error, requestedPath, this.roots);
    }
    // The resolved path is checked before anything else touches it.
    if (!this.admits(realPath)) throw outsideRoots(requestedPath, this.roots, realPath);
    return { requestedPath, realPath };
  }

  /**
   * Checks a requested path ({@linkcode RootFence.check}), opens the file it
   * names without ever blocking (a FIFO or device is refused before any read)
   * and verifies that what was opened is what was checked: the handle's
   * device and inode equal the path's, and the path still resolves to itself
   * under a root. Refusals are `outside_approved_root`,
   * `invalid_request` (not a regular file) or
   * an I/O failure. The caller closes the returned file.
   */
  async openFile(requested: string, options: FenceCheckOptions = {}): Promise<VerifiedFile> {
    const fenced = await this.check(requested, options);
    return await openVerified(fenced, { admits: (path) => this.admits(path), roots: this.roots });
  }

  /** The tool failure for an I/O error on a fenced path. */
  ioFailure(error: unknown, path: string): ToolFailure {
    return ioFailure(error, path, this.roots);
  }
}

/** A device and inode: what identifies a file independently of its path. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** A regular file opened under a root and verified to be the one checked. */
export interface VerifiedFile extends FencedPath {
  /** The open handle (never blocks: opened non-blocking, regular files only). */
  handle: FileHandle;
  /** Size of the open file when it was verified. */
  size: number;
  /** Identity of the open handle. */
  identity: FileIdentity;
  /** Reads into `buffer` from `position` (the handle's position when null); 0 at end. */
  read(buffer: Uint8Array, position: number | null): Promise<number>;
  /** Closes the handle (idempotent). */
  close(): Promise<void>;
}

/** Options of {@linkcode openVerified}. */
export interface OpenVerifiedOptions {
  /** Whether a real path lies inside the allowed roots. */
  admits: (realPath: string) => boolean;
  /** The roots, for messages. */
  roots: readonly RootDirectory[];
  /** The identity the file must have (e.g. what a directory walk's `lstat` saw). */
  expect?: FileIdentity;
}

/** How many times the path is re-resolved and re-identified after an open. */
const VERIFY_ROUNDS = 16;

const OPEN_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0) |
  (fsConstants.O_NOFOLLOW ?? 0);

/**
 * Opens a real path already checked against the roots and verifies what was
 * opened: a regular file (checked on the handle, before any read, so a FIFO
 * or device swapped in never blocks), whose device and inode equal those of
 * the path looked at before and after the open, and whose path still
 * resolves to itself inside a root (checked several times after the open).
 * The last path component is never followed (`O_NOFOLLOW`). On Linux the
 * kernel's own name for the open handle (`/proc/self/fd`) is checked against
 * the roots too when the process may read it, which Deno allows only under
 * `--allow-all`; without it the path checks narrow the race window to
 * consecutive lost alternations but cannot close it the way a
 * descriptor-relative open would.
 *
 * Requires `--allow-read` for the path.
 */
export async function openVerified(
  fenced: FencedPath,
  options: OpenVerifiedOptions,
): Promise<VerifiedFile> {
  const { requestedPath, realPath } = fenced;
  const before = await lstatIdentity(realPath, requestedPath, options.roots);
  let handle: FileHandle;
  try {
    handle = await openHandle(realPath, OPEN_FLAGS);
  } catch (error) {
    if ((error as { code?: string }).code === "ELOOP") {
      throw mismatch(requestedPath, "its last component became a symbolic link");
    }
    throw ioFailure(error, requestedPath, options.roots);
  }
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await handle.close().catch(() => {});
  };
  try {
    const info = await handle.stat();
    if (info.isDirectory()) {
      throw new ToolFailure("invalid_request", `${requestedPath} is a directory, not a file.`, {
        action: "Pass the absolute path of a regular file under an allowed root.",
      });
    }
    if (!info.isFile()) {
      throw new ToolFailure(
        "invalid_request",
        `${requestedPath} is not a regular file (device, socket or FIFO); it was not read.`,
        { action: "Pass the absolute path of a regular file under an allowed root." },
      );
    }
    const identity = { dev: Number(info.dev), ino: Number(info.ino) };
    const kernelName = descriptorPath(handle.fd);
    if (kernelName !== null && !options.admits(kernelName)) {
      throw outsideRoots(requestedPath, options.roots, kernelName);
    }
    if (!sameIdentity(before, identity)) {
      throw mismatch(requestedPath, "the file opened is not the one at the path before opening");
    }
    confirmPath(fenced, identity, options);
    if (options.expect && !sameIdentity(options.expect, identity)) {
      throw mismatch(requestedPath, "the file opened is not the one the walk looked at");
    }
    return {
      requestedPath,
      realPath,
      handle,
      size: info.size,
      identity,
      read: async (buffer, position) =>
        (await handle.read(buffer, 0, buffer.byteLength, position)).bytesRead,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Confirms, after an open or a listing, that a path still resolves to itself
 * under a root and still names the file or directory with `identity`. Deno
 * has no descriptor-relative open, so the check is repeated back to back
 * (synchronously: a few microseconds each), and a racer swapping a parent
 * must win every alternation in a row. Throws `outside_approved_root`.
 *
 * Requires `--allow-read` for the path.
 */
export function confirmPath(
  fenced: FencedPath,
  identity: FileIdentity,
  options: Pick<OpenVerifiedOptions, "admits" | "roots">,
): void {
  const { requestedPath, realPath } = fenced;
  for (let round = 0; round < VERIFY_ROUNDS; round++) {
    let again: string;
    let after: FileIdentity;
    try {
      again = Deno.realPathSync(realPath);
      const info = Deno.lstatSync(realPath);
      after = { dev: info.dev, ino: info.ino ?? -1 };
    } catch (error) {
      throw ioFailure(error, requestedPath, options.roots);
    }
    if (again !== realPath || !options.admits(again)) {
      throw outsideRoots(requestedPath, options.roots, again);
    }
    if (!sameIdentity(after, identity)) {
      throw mismatch(requestedPath, "what was opened is not what the path names now");
    }
  }
}

/** Whether two identities name the same file. */
export function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** The refusal when what was opened or listed is not what was checked. */
export function identityMismatch(path: string, why: string): ToolFailure {
  return mismatch(path, why);
}

function mismatch(path: string, why: string): ToolFailure {
  return new ToolFailure(
    "outside_approved_root",
    `${path} changed while it was being opened (${why}); nothing of it was read.`,
    {
      retryable: true,
      action: "Make sure nothing renames or replaces files under the root, then try again.",
    },
  );
}

async function lstatIdentity(
  path: string,
  requestedPath: string,
  roots: readonly RootDirectory[],
): Promise<FileIdentity> {
  try {
    const info = await Deno.lstat(path);
    return { dev: info.dev, ino: info.ino ?? -1 };
  } catch (error) {
    throw ioFailure(error, requestedPath, roots);
  }
}

/** The kernel's name for an open descriptor (Linux), or null when it cannot be read. */
function descriptorPath(fd: number): string | null {
  if (Deno.build.os !== "linux") return null;
  const link = `/proc/self/fd/${fd}`;
  try {
    if (Deno.permissions.querySync({ name: "read", path: link }).state !== "granted") return null;
    return Deno.readLinkSync(link);
  } catch {
    return null;
  }
}
