/**
 * Small helpers importers share: the parsed JSON of a source (or of a named
 * file in a source directory), file stems.
 *
 * @module
 */

import { join } from "node:path";
import { LoadError } from "../model/errors.ts";
import type {
  ImportContext,
  Importer,
  ImportInput,
  ImportResult,
  ImportSource,
} from "./importer.ts";
import { isObject } from "./import_input.ts";
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
async function namedFileJson(
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

/**
 * The document as an object, refused with a {@linkcode LoadError} naming the
 * file and `label` (`an inventory`) when it is not one or lacks what `missing`
 * finds missing (its sentence then says what the kind's document holds).
 */
export function documentObject(
  doc: unknown,
  fileName: string,
  options: { label: string; missing: (doc: Record<string, unknown>) => string | null },
): Record<string, unknown> {
  const refuse = (why: string): LoadError =>
    new LoadError(`Cannot load ${fileName} as ${options.label}: ${why}`);
  if (!isObject(doc)) throw refuse("the document must be a JSON object.");
  const missing = options.missing(doc);
  if (missing !== null) throw refuse(missing);
  return doc;
}

/** What a directory-or-file kind declares: see {@linkcode namedFileImporter}. */
export interface NamedFileKind {
  /** The kind's name. */
  kind: string;
  /** One line saying what input it reads. */
  description: string;
  /** The file a directory of this kind holds. */
  fileName: string;
  /** Its places in the detection table: as a directory, and as parsed JSON. */
  order: { directory: number; json: number };
  /** Whether parsed JSON is a document of this kind. */
  isDocument(value: unknown): boolean;
  /** Reads the document (`input` says where it came from). */
  read(named: NamedJson, input: ImportInput): Promise<ImportResult> | ImportResult;
}

/**
 * The importer of a kind read from one JSON file, or from a directory holding
 * that file under a fixed name: recognised by that name in a listing or by the
 * document's shape.
 */
export function namedFileImporter(spec: NamedFileKind): Importer {
  const { kind, fileName, order } = spec;
  return {
    kind,
    description: spec.description,
    detectors: [
      {
        stage: "directory",
        order: order.directory,
        test: (listing) => listing.hasFile(fileName),
      },
      { stage: "json", order: order.json, test: spec.isDocument },
    ],
    async load(input: ImportInput): Promise<ImportResult> {
      return await spec.read(await namedFileJson(input, { fileName, kind }), input);
    },
  };
}

/** A file name without its last extension (`inventory-map.json` → `inventory-map`). */
export function fileStem(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  return dot > 0 ? fileName.slice(0, dot) : fileName;
}
