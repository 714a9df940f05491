/**
 * The root fence: the one place that decides whether a path a client names
 * lies under a directory the operator allowed. Every path-taking tool of every
 * workbench resolves its paths here before any other I/O touches them.
 *
 * Requires `--allow-read` for the roots.
 *
 * @module
 */

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

  /** The tool failure for an I/O error on a fenced path. */
  ioFailure(error: unknown, path: string): ToolFailure {
    return ioFailure(error, path, this.roots);
  }
}
