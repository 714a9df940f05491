/**
 * Writing export files under the operator's output directory, and nowhere
 * else. A `subdir` and a `filename` are checked against their patterns,
 * absolute paths and `..` components are refused, an output directory whose
 * path crosses a symbolic link is refused, every existing directory
 * on the way is checked with `lstat` (a symbolic link is refused), missing
 * ones are made one at a time and checked again, and each file is written
 * to a fresh temporary file beside its final name and then renamed over it.
 *
 * @module
 */

import { join, resolve, sep } from "node:path";
import { InvalidArgumentError } from "../model/errors.ts";

/** The accepted `filename` pattern. */
export const FILENAME_PATTERN: RegExp = /^[A-Za-z0-9_.-]{1,100}$/;

/** The accepted `subdir` pattern. */
export const SUBDIR_PATTERN: RegExp = /^[A-Za-z0-9_./-]{0,200}$/;

/** A `subdir` or `filename` that would leave the output directory or breaks its pattern. */
export class ExportPathError extends InvalidArgumentError {}

/** The output directory is missing, not configured, or not writable by this process. */
export class OutputDirectoryError extends Error {
  /** The Deno flag that would allow the write, when a permission is what is missing. */
  readonly flag: string | null;

  /** Builds the error with the flag that would fix it (or null). */
  constructor(message: string, flag: string | null = null) {
    super(message);
    this.name = "OutputDirectoryError";
    this.flag = flag;
  }
}

/** One file to write: its name (a checked filename) and its content. */
export interface ExportFile {
  /** The file name, without directories. */
  name: string;
  /** Text (written as UTF-8) or bytes. */
  content: string | Uint8Array;
  /** File mode bits. @default 0o644 */
  mode?: number;
}

/** A written file. */
export interface WrittenFile {
  /** The absolute path written. */
  path: string;
  /** The path relative to the output directory, with `/` separators. */
  relative_path: string;
  /** Bytes written. */
  bytes: number;
}

/**
 * Checks a filename: the pattern `^[A-Za-z0-9_.-]{1,100}$`, and not made
 * of dots only. Returns it unchanged.
 */
export function checkFilename(name: string): string {
  if (!FILENAME_PATTERN.test(name) || /^\.+$/.test(name)) {
    throw new ExportPathError(
      "The filename is not accepted: use 1 to 100 characters from A-Z, a-z, 0-9, '_', '.' and '-', not only dots.",
      { value: name.slice(0, 120), pattern: FILENAME_PATTERN.source },
    );
  }
  return name;
}

/**
 * Splits a subdir into its components: the pattern
 * `^[A-Za-z0-9_./-]{0,200}$`, not absolute, no `..` component; empty and
 * `.` components are dropped ("" means the output directory itself).
 */
export function subdirComponents(subdir: string): string[] {
  if (!SUBDIR_PATTERN.test(subdir)) {
    throw new ExportPathError(
      "The subdir is not accepted: use up to 200 characters from A-Z, a-z, 0-9, '_', '.', '-' and '/'.",
      { value: subdir.slice(0, 220), pattern: SUBDIR_PATTERN.source },
    );
  }
  if (subdir.startsWith("/")) {
    throw new ExportPathError(
      "The subdir must be relative to the output directory, not an absolute path.",
      { value: subdir, leaves_output_dir: true },
    );
  }
  const parts = subdir.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) {
    throw new ExportPathError(
      "The subdir must stay under the output directory: '..' components are refused.",
      { value: subdir, leaves_output_dir: true },
    );
  }
  return parts;
}

/** Whether this process may write under `dir` (asked without prompting). */
export function mayWrite(dir: string): boolean {
  try {
    return Deno.permissions.querySync({ name: "write", path: dir }).state === "granted";
  } catch {
    return false;
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound;
}

async function lstatOrNull(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** The checked real path of the output directory (made when missing). */
async function outputRoot(outputDir: string): Promise<string> {
  const dir = resolve(outputDir);
  if (!mayWrite(dir)) {
    throw new OutputDirectoryError(
      `The server may not write to the output directory ${dir}: restart it with --allow-write=${dir} (or a grant that covers it).`,
      `--allow-write=${dir}`,
    );
  }
  const info = await lstatOrNull(dir);
  if (info === null) {
    await Deno.mkdir(dir, { recursive: true });
  } else if (!info.isDirectory && !info.isSymlink) {
    throw new OutputDirectoryError(`The output directory ${dir} is not a directory.`);
  }
  const real = await Deno.realPath(dir);
  if (real !== dir) {
    // A link anywhere on the way would carry every write wherever it points.
    throw new OutputDirectoryError(
      `The output directory ${dir} is or passes through a symbolic link (it resolves to ${real}); output directories must not cross symbolic links. Name the real directory.`,
    );
  }
  if (!(await Deno.stat(real)).isDirectory) {
    throw new OutputDirectoryError(`The output directory ${dir} is not a directory.`);
  }
  if (!mayWrite(real)) {
    throw new OutputDirectoryError(
      `The server may not write to the output directory ${real}: restart it with --allow-write=${real} (or a grant that covers it).`,
      `--allow-write=${real}`,
    );
  }
  return real;
}

/** Makes (or checks) each component of `parts` under `root`, refusing links and non-directories. */
async function directoryUnder(root: string, parts: readonly string[]): Promise<string> {
  let current = root;
  for (const [i, part] of parts.entries()) {
    current = join(current, part);
    const shown = parts.slice(0, i + 1).join("/");
    let info = await lstatOrNull(current);
    if (info === null) {
      try {
        await Deno.mkdir(current);
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      }
      info = await lstatOrNull(current);
    }
    if (info === null || info.isSymlink) {
      throw new ExportPathError(
        `The subdir component ${shown} is a symbolic link; exports never follow links out of the output directory.`,
        { value: shown, leaves_output_dir: true },
      );
    }
    if (!info.isDirectory) {
      throw new ExportPathError(`The subdir component ${shown} exists and is not a directory.`, {
        value: shown,
      });
    }
  }
  const real = await Deno.realPath(current);
  if (real !== current && !(real + sep).startsWith(root + sep)) {
    throw new ExportPathError("The subdir resolves outside the output directory.", {
      value: parts.join("/"),
      leaves_output_dir: true,
    });
  }
  return current;
}

function randomSuffix(): string {
  return [...crypto.getRandomValues(new Uint8Array(6))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Writes one file atomically in `dir`: a new temporary file (never an existing one), then a rename. */
async function writeAtomically(dir: string, file: ExportFile): Promise<number> {
  const target = join(dir, file.name);
  const existing = await lstatOrNull(target);
  if (existing !== null && !existing.isFile) {
    throw new ExportPathError(
      `${file.name} already exists there and is not a regular file (a link or a directory); it is left alone.`,
      { value: file.name },
    );
  }
  const bytes = typeof file.content === "string"
    ? new TextEncoder().encode(file.content)
    : file.content;
  const temporary = join(dir, `.${file.name}.${randomSuffix()}.tmp`);
  const handle = await Deno.open(temporary, {
    write: true,
    createNew: true,
    mode: file.mode ?? 0o644,
  });
  try {
    let written = 0;
    while (written < bytes.length) written += await handle.write(bytes.subarray(written));
    await handle.sync();
  } catch (error) {
    handle.close();
    await Deno.remove(temporary).catch(() => undefined);
    throw error;
  }
  handle.close();
  try {
    await Deno.rename(temporary, target);
  } catch (error) {
    await Deno.remove(temporary).catch(() => undefined);
    throw error;
  }
  return bytes.length;
}

/**
 * Writes `files` into `subdir` of `outputDir`. Every name and the subdir are
 * checked before anything is made; the output directory itself is made when
 * missing. Throws {@link ExportPathError} for a path that would leave the
 * directory and {@link OutputDirectoryError} when the directory cannot be
 * written (its message names the `--allow-write` flag).
 *
 * @example
 * ```ts
 * import { writeExportFiles } from "./output_dir.ts";
 * const dir = await Deno.makeTempDir();
 * const [file] = await writeExportFiles(dir, "reports", [{ name: "a.json", content: "{}" }]);
 * ```
 */
export async function writeExportFiles(
  outputDir: string,
  subdir: string,
  files: readonly ExportFile[],
): Promise<WrittenFile[]> {
  const parts = subdirComponents(subdir);
  for (const file of files) checkFilename(file.name);
  const root = await outputRoot(outputDir);
  const dir = await directoryUnder(root, parts);
  const written: WrittenFile[] = [];
  for (const file of files) {
    const bytes = await writeAtomically(dir, file);
    written.push({
      path: join(dir, file.name),
      relative_path: [...parts, file.name].join("/"),
      bytes,
    });
  }
  return written;
}
