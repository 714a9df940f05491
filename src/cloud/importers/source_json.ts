/**
 * Small helpers importers share: the parsed JSON of a source, file stems.
 *
 * @module
 */

import { LoadError } from "../model/errors.ts";
import type { ImportSource } from "./importer.ts";
import { parseJsonText } from "./read.ts";

/** The source's parsed JSON; a positioned {@linkcode LoadError} when the file is not valid JSON. */
export function sourceJson(source: ImportSource, kind: string): unknown {
  if (source.json !== undefined) return source.json;
  if (source.text === undefined) {
    throw new LoadError(`The ${kind} kind reads a JSON file, not a directory.`, { kind });
  }
  return parseJsonText(source.text, source.fileName);
}

/** A file name without its last extension (`inventory-map.json` → `inventory-map`). */
export function fileStem(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  return dot > 0 ? fileName.slice(0, dot) : fileName;
}
