/**
 * Reading an importer's input: the errors importers throw on bad input, JSON
 * parsing that locates the error, accessors over untyped JSON, the size limit,
 * and an {@link ImportInput} over the local file system for tests and benches.
 *
 * @module
 */

import { LoadError } from "../model/errors.ts";
import type { DirectoryEntry, Importer, ImportInput, ImportResult } from "./importer.ts";
import { MAX_INPUT_BYTES } from "./read.ts";

/**
 * The largest input file an importer reads by default (the loader's default,
 * {@link MAX_INPUT_BYTES}); an input's own `maxBytes` (the operator's
 * `--max-dataset-bytes`) replaces it.
 */
export const MAX_IMPORT_BYTES: number = MAX_INPUT_BYTES;

/**
 * A refused input: the message says what was wrong and what is accepted.
 * A {@link LoadError}, so the MCP layer reports it as an invalid argument
 * with `data.importer` (the kind) and `data.file` (the file's base name).
 */
export class ImportError extends LoadError {
  /** The importer kind that refused. */
  readonly importer: string;
  /** The file concerned, when one is. */
  readonly file: string | null;
  /** Creates the error. */
  constructor(message: string, options: { kind: string; file: string | null }) {
    super(message, {
      importer: options.kind,
      ...(options.file === null ? {} : { file: fileLabel(options.file) }),
    });
    this.importer = options.kind;
    this.file = options.file;
  }
}

/** Short name of a path for messages (the last segment). */
export function fileLabel(path: string): string {
  const parts = path.split(/[\\/]/).filter((p) => p.length > 0);
  return parts[parts.length - 1] ?? path;
}

/** Line and column (1-based) of a character offset in a text. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let last = -1;
  const end = Math.min(offset, text.length);
  for (let i = text.indexOf("\n"); i !== -1 && i < end; i = text.indexOf("\n", i + 1)) {
    line++;
    last = i;
  }
  return { line, column: end - last };
}

/**
 * Parses JSON text, turning a syntax error into an {@link ImportError} that
 * names the file and the line/column where parsing stopped (never the input).
 */
export function parseJsonText(
  text: string,
  options: { kind: string; path: string },
): unknown {
  const { kind, path } = options;
  // Editors on Windows may prefix a byte-order mark, which JSON.parse refuses.
  if (text.charCodeAt(0) === 0xfeff) text = " " + text.slice(1);
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const match = /position (\d+)/.exec(message);
    const offset = match ? Number(match[1]) : jsonErrorOffset(text);
    if (offset === -1) {
      throw new ImportError(
        `${fileLabel(path)} is not valid JSON (it nests more than 2,000 levels deep, where the ` +
          `error is not located). A ${kind} input must be one JSON document.`,
        { kind, file: path },
      );
    }
    const { line, column } = lineColumn(text, offset);
    const truncated = offset >= text.trimEnd().length;
    throw new ImportError(
      `${fileLabel(path)} is not valid JSON: ${
        truncated ? "the text ends early (truncated?)" : "unexpected text"
      } at line ${line}, column ${column} (offset ${offset}). A ${kind} input must be one JSON document.`,
      { kind: kind, file: path },
    );
  }
}

/**
 * The offset where a JSON text stops being valid (its length when it ends
 * early; -1 when it nests more than 2,000 levels, where the check stops).
 * Used only after `JSON.parse` failed without saying where.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const n = text.length;
  const ws = (): void => {
    while (i < n && (text[i] === " " || text[i] === "\n" || text[i] === "\r" || text[i] === "\t")) {
      i++;
    }
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string): void => {
    if (text.startsWith(word, i)) i += word.length;
    else fail();
  };
  const string = (): void => {
    i++;
    while (i < n && text[i] !== '"') {
      if (text[i] === "\\") i++;
      else if (text.charCodeAt(i) < 0x20) fail();
      i++;
    }
    if (i >= n) fail();
    i++;
  };
  const number = (): void => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0] === "") fail();
    i += m![0].length;
  };
  // The items of an object or array from its opening character to `close`, comma-separated.
  const items = (close: string, item: () => void): void => {
    i++;
    ws();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      item();
      ws();
      if (text[i] === ",") {
        i++;
        continue;
      }
      if (text[i] === close) {
        i++;
        return;
      }
      fail();
    }
  };
  const value = (depth: number): void => {
    ws();
    if (depth > 2_000) throw "deep";
    if (i >= n) fail();
    const c = text[i];
    if (c === "{") {
      items("}", () => {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ":") fail();
        i++;
        value(depth + 1);
      });
    } else if (c === "[") items("]", () => value(depth + 1));
    else if (c === '"') string();
    else if (c === "t") literal("true");
    else if (c === "f") literal("false");
    else if (c === "n") literal("null");
    else number();
  };
  try {
    value(0);
    ws();
    return i < n ? i : n;
  } catch (offset) {
    if (typeof offset === "number") return Math.min(offset, n);
    if (offset === "deep") return -1;
    throw offset;
  }
}

/** Whether a value is a plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A string field, or null. */
export function str(value: unknown): string | null {
  return typeof value === "string" && value.length > 0 ? value : null;
}

/** An array field, or an empty array. */
export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** An object field, or an empty object. */
export function obj(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {};
}

/** Strings of a string-or-array field. */
export function strings(value: unknown): string[] {
  if (typeof value === "string") return value.length > 0 ? [value] : [];
  return arr(value).filter((v): v is string => typeof v === "string" && v.length > 0);
}

/** An AWS tag list (`[{ Key, Value }]`) as a record; entries without a key are passed over. */
export function tagList(list: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of arr(list)) {
    const k = str(obj(t).Key);
    if (k) out[k] = String(obj(t).Value ?? "");
  }
  return out;
}

/** Reads a file's text through the input, refusing it with the kind's name when missing. */
export async function readInputText(
  input: ImportInput,
  options: { kind: string; path: string },
): Promise<string> {
  const { kind, path } = options;
  let text: string;
  try {
    // The loader has already read the input file itself.
    text = path === input.path && input.text !== undefined
      ? input.text
      : await input.readText(path);
  } catch (error) {
    if (error instanceof ImportError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new ImportError(`Cannot read ${fileLabel(path)} as ${kind} input: ${reason}`, {
      kind: kind,
      file: path,
    });
  }
  // A caller's reader may not check sizes: refuse oversized text here too.
  const limit = input.maxBytes ?? MAX_IMPORT_BYTES;
  if (text.length > limit) {
    throw new ImportError(
      `${fileLabel(path)} holds ${text.length} characters, over the import limit of ` +
        `${limit} bytes (${
          Number((limit / 1024 / 1024).toFixed(1))
        } MiB, --max-dataset-bytes); split the export or filter it first.`,
      { kind: kind, file: path },
    );
  }
  return text;
}

/** The parsed JSON of the input file (the detector's parse when given). */
export async function readInputJson(kind: string, input: ImportInput): Promise<unknown> {
  if (input.json !== undefined) return input.json;
  const text = await readInputText(input, { kind: kind, path: input.path });
  return parseJsonText(text, { kind: kind, path: input.path });
}

/** What a kind read from one JSON document declares: see {@linkcode jsonDocumentImporter}. */
export interface JsonDocumentKind {
  /** The kind's name. */
  kind: string;
  /** One line saying what input it reads. */
  description: string;
  /** Its place among the JSON detectors. */
  order: number;
  /** Whether parsed JSON is a document of this kind. */
  isDocument(value: unknown): boolean;
  /** The refusal after "<file> is not ": what the file is not, and what the kind expects. */
  notA: string;
  /** Reads a document `isDocument` accepted. */
  read(doc: Record<string, unknown>, input: ImportInput): Promise<ImportResult> | ImportResult;
}

/**
 * The importer of a kind read from one JSON document, recognised by its
 * shape; a document of another shape is refused with an {@link ImportError}.
 */
export function jsonDocumentImporter(spec: JsonDocumentKind): Importer {
  const { kind } = spec;
  return {
    kind,
    description: spec.description,
    detectors: [{ stage: "json", order: spec.order, test: spec.isDocument }],
    async load(input: ImportInput): Promise<ImportResult> {
      const value = await readInputJson(kind, input);
      if (!spec.isDocument(value)) {
        throw new ImportError(`${fileLabel(input.path)} is not ${spec.notA}`, {
          kind,
          file: input.path,
        });
      }
      return await spec.read(value as Record<string, unknown>, input);
    },
  };
}

/**
 * An {@link ImportInput} over the local file system, for tests, benches and
 * callers that fenced the path themselves (the fence is the identity).
 * `readText` refuses files larger than `maxBytes` (default
 * {@link MAX_IMPORT_BYTES}) before reading them; `json` stands for a
 * document the caller already parsed.
 */
export function fileImportInput(
  path: string,
  options: { maxBytes?: number; json?: unknown } = {},
): ImportInput {
  const maxBytes = options.maxBytes ?? MAX_IMPORT_BYTES;
  const readText = async (file: string): Promise<string> => {
    const info = await Deno.stat(file);
    if (info.size > maxBytes) {
      throw new ImportError(
        `${fileLabel(file)} is ${info.size} bytes, over the import limit of ${maxBytes} bytes ` +
          `(${Math.round(maxBytes / 1024 / 1024)} MiB); split the export or filter it first.`,
        { kind: "file", file: file },
      );
    }
    return await Deno.readTextFile(file);
  };
  return {
    path,
    fileName: fileLabel(path),
    maxBytes,
    ...(options.json === undefined ? {} : { json: options.json }),
    fence: (p: string) => Promise.resolve(p),
    readText,
    readJson: async (file: string) =>
      parseJsonText(await readText(file), { kind: "file", path: file }),
    async listDirectory(dir: string): Promise<DirectoryEntry[]> {
      const out: DirectoryEntry[] = [];
      for await (const e of Deno.readDir(dir)) {
        out.push({ name: e.name, isFile: e.isFile, isDirectory: e.isDirectory });
      }
      return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
  };
}
