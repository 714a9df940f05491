/**
 * Small helpers importers share: the parsed JSON of a source (or of a named
 * file in a source directory), file stems.
 *
 * @module
 */

import { join } from "node:path";
import { LoadError } from "../model/errors.ts";
import type { ImportContext, ImportSource } from "./importer.ts";
import { parseJsonText } from "./read.ts";

/** The source's parsed JSON; a positioned {@linkcode LoadError} when the file is not valid JSON. */
export function sourceJson(source: ImportSource, kind: string): unknown {
  if (source.json !== undefined) return source.json;
  if (source.text === undefined) {
    throw new LoadError(`The ${kind} kind reads a JSON file, not a directory.`, { kind });
  }
  return parseJsonText(source.text, source.fileName);
}

/** A JSON document an importer read, and the file name it came from. */
export interface NamedJson {
  /** The parsed document. */
  doc: unknown;
  /** The file name the document came from. */
  fileName: string;
}

/**
 * The JSON a directory-or-file kind reads: for a directory, its file named
 * `fileName` (a {@linkcode LoadError} when it holds none); for a file, the
 * file itself.
 */
export async function namedFileJson(
  input: ImportSource & ImportContext,
  options: { fileName: string; kind: string },
): Promise<NamedJson> {
  const { fileName, kind } = options;
  if (!input.listing) return { doc: sourceJson(input, kind), fileName: input.fileName };
  if (!input.listing.hasFile(fileName)) {
    throw new LoadError(`The directory holds no ${fileName} for the ${kind} kind.`);
  }
  const path = await input.fence(join(input.path, fileName));
  return { doc: await input.readJson(path), fileName };
}

/** A file name without its last extension (`inventory-map.json` → `inventory-map`). */
export function fileStem(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  return dot > 0 ? fileName.slice(0, dot) : fileName;
}
