/**
 * Reading inputs: a size limit on every file, JSON parse errors that name
 * the file and the line and column, and bounded directory walks.
 *
 * @module
 */

import { parse as parseTolerant, type ParseError } from "jsonc-parser";
import { constants as fsConstants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { basename, join } from "node:path";
import { LoadError } from "../model/errors.ts";
import type { DirectoryListing, WalkOptions } from "./importer.ts";
import {
  describeLimit,
  MAX_DATASET_BYTES_FLAG,
  MAX_INPUT_BYTES,
  oversizeMessage,
} from "./input_limits.ts";

export {
  describeLimit,
  LOAD_MEMORY_BOUND,
  LOAD_PEAK_FACTOR,
  MAX_BYTE_SIZE,
  MAX_DATASET_BYTES_FLAG,
  MAX_INPUT_BYTES,
  oversizeMessage,
  parseByteSize,
} from "./input_limits.ts";

/**
 * The bytes one load has read so far, against the limit: the files of a
 * directory input (an AWS API dump, a Checkov folder) share one limit.
 */
export interface ReadBudget {
  /** The input's name, for the refusal. */
  readonly input: string;
  /** Bytes read so far. */
  used: number;
}

/**
 * Reads a file as UTF-8 text, refusing it when larger than `maxBytes`
 * (default {@linkcode MAX_INPUT_BYTES}), or, with a `budget`, when it would
 * take the bytes read for one input past `maxBytes`. Requires `--allow-read`.
 */
export async function readTextFile(
  path: string,
  maxBytes: number = MAX_INPUT_BYTES,
  budget?: ReadBudget,
): Promise<string> {
  const name = basename(path);
  // Opened non-blocking and checked on the handle, so a FIFO or device (even one swapped in
  // after a stat) is refused without ever waiting on it.
  let handle: FileHandle;
  try {
    handle = await open(path, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
  } catch {
    throw new LoadError(`Cannot read ${name}: the file does not exist or is not readable.`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new LoadError(`Cannot read ${name}: it is not a regular file.`);
    if (info.size > maxBytes) {
      throw new LoadError(oversizeMessage(name, info.size, maxBytes), {
        size: info.size,
        limit: maxBytes,
        setting: MAX_DATASET_BYTES_FLAG,
      });
    }
    if (budget && budget.used + info.size > maxBytes) {
      throw new LoadError(
        `Cannot load ${budget.input}: with ${name} its files add up to ` +
          `${describeLimit(budget.used + info.size)}, and this server refuses inputs larger ` +
          `than ${describeLimit(maxBytes)} (${MAX_DATASET_BYTES_FLAG}); the files of a ` +
          `directory share the limit. Load a smaller part of it, or ask the operator to ` +
          `restart the server with a larger ${MAX_DATASET_BYTES_FLAG}.`,
        { size: budget.used + info.size, limit: maxBytes, setting: MAX_DATASET_BYTES_FLAG },
      );
    }
    // One byte more than the limit, so growth after the stat is noticed.
    const bytes = new Uint8Array(Math.min(maxBytes + 1, info.size + 1));
    let filled = 0;
    while (filled < bytes.length) {
      const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > maxBytes || filled > info.size) {
      throw new LoadError(
        `Cannot load ${name}: it changed while being read, or is larger than ${
          describeLimit(maxBytes)
        }.`,
      );
    }
    if (budget) budget.used += filled;
    return new TextDecoder().decode(bytes.subarray(0, filled));
  } finally {
    await handle.close().catch(() => {});
  }
}

/** Line and column (1-based) of a UTF-16 offset in a text. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: end - start + 1 };
}

/**
 * Parses JSON, or throws a {@linkcode LoadError} naming the file and where
 * the text stops being JSON (data `{file, position, line, column}`).
 */
export function parseJsonText(text: string, fileName: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch (error) {
    const position = errorOffset(body, error);
    const { line, column } = lineAndColumn(body, position);
    const what = position >= body.trimEnd().length
      ? "ends before the JSON document is complete (truncated?)"
      : "is not valid JSON";
    throw new LoadError(
      `Cannot parse ${fileName}: the text ${what} at line ${line}, column ${column} ` +
        `(offset ${position}).`,
      { file: fileName, position, line, column },
    );
  }
}

/** Where JSON text stops being valid: a strict scan with jsonc-parser, else the engine's offset. */
function errorOffset(text: string, error: unknown): number {
  const errors: ParseError[] = [];
  parseTolerant(text, errors, {
    disallowComments: true,
    allowTrailingComma: false,
    allowEmptyContent: false,
  });
  if (errors.length > 0) return Math.min(errors[0]!.offset, text.length);
  const match = /position (\d+)/.exec(error instanceof Error ? error.message : "");
  return match ? Number(match[1]) : text.length;
}

/** Whether text looks like it was meant to be one JSON document. */
export function looksLikeJson(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "{" || c === "[") return true;
    if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r" && c !== "\ufeff") return false;
  }
  return false;
}

/** The text before the first line break (all of it when there is none). */
export function firstLine(text: string): string {
  const newline = text.indexOf("\n");
  return newline < 0 ? text : text.slice(0, newline);
}

/** The first line of a text parsed as JSON, or undefined when it is not JSON. */
export function firstJsonLine(text: string): unknown {
  const line = firstLine(text).trim();
  if (line === "") return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** Lists a directory for detectors. Requires `--allow-read`. */
export async function listDirectory(path: string): Promise<DirectoryListing> {
  const files = new Set<string>();
  const names: string[] = [];
  for await (const entry of Deno.readDir(path)) {
    names.push(entry.name);
    if (entry.isFile) files.add(entry.name);
    else if (entry.isSymlink) {
      try {
        if ((await Deno.stat(join(path, entry.name))).isFile) files.add(entry.name);
      } catch {
        // A dangling link is neither a file nor a directory.
      }
    }
  }
  names.sort();
  return {
    path,
    names,
    hasFile: (name: string): boolean => files.has(name),
    walk: (options?: WalkOptions): Promise<string[]> => walkFiles(path, options),
  };
}

async function walkFiles(root: string, options: WalkOptions = {}): Promise<string[]> {
  const maxDepth = options.maxDepth ?? 6;
  const maxEntries = options.maxEntries ?? 10_000;
  const found: string[] = [];
  let seen = 0;
  let level: string[] = [""];
  for (let depth = 1; depth <= maxDepth && level.length > 0; depth++) {
    const next: string[] = [];
    for (const relative of level) {
      let entries: Deno.DirEntry[];
      try {
        entries = await Array.fromAsync(Deno.readDir(relative ? join(root, relative) : root));
      } catch {
        continue;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        if (++seen > maxEntries) return found;
        const path = relative ? `${relative}/${entry.name}` : entry.name;
        if (entry.isDirectory) next.push(path);
        else if (entry.isFile) found.push(path);
      }
    }
    level = next;
  }
  return found;
}
