/**
 * Generic JSON: an object with any of `assets`, `edges`, `findings` (and the
 * other record keys), or a top-level list of findings.
 *
 * @module
 */

import { LoadError } from "../model/errors.ts";
import {
  DETECTION_ORDER,
  emptyNotes,
  type Importer,
  type ImportResult,
  type ImportSource,
} from "./importer.ts";
import { isObject } from "./import_input.ts";
import { parseRecords } from "./parse_records.ts";
import { sourceJson } from "./source_json.ts";

/** The keys a generic document holds at least one of. */
const RECORD_KEYS = ["assets", "edges", "findings", "compliance"];

/** Whether a JSON value is a generic object: it has `assets`, `edges` or `findings`. */
export function isGenericObject(value: unknown): boolean {
  return isObject(value) && ("assets" in value || "edges" in value || "findings" in value);
}

/** Whether a JSON value is a list whose first item looks like a finding. */
export function isFindingList(value: unknown): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  const first = value[0];
  return isObject(first) && ("severity" in first || "title" in first || "resource_id" in first);
}

/** Reads a generic document (object, or list of findings) into records. */
export function parseGenericDocument(doc: unknown, fileName: string): ImportResult {
  const body = Array.isArray(doc) ? { findings: doc } : doc;
  if (!isObject(body)) {
    throw new LoadError(
      `Cannot load ${fileName} as generic JSON: expected an object with assets, edges or ` +
        `findings, or a list of findings.`,
    );
  }
  if (!RECORD_KEYS.some((key) => key in body)) {
    throw new LoadError(
      `Cannot load ${fileName} as generic JSON: it has none of ${RECORD_KEYS.join(", ")} ` +
        `(expected an object holding some of them, or a list of findings).`,
    );
  }
  const notes = emptyNotes();
  const records = parseRecords(body, notes);
  return { records, notes, metadata: {} };
}

/** The `generic` importer. */
export const genericImporter: Importer = {
  kind: "generic",
  description: "generic JSON: {assets, edges, findings, …} or a list of findings",
  detectors: [
    { stage: "json", order: DETECTION_ORDER.json_generic_object, test: isGenericObject },
    { stage: "json", order: DETECTION_ORDER.json_generic_array, test: isFindingList },
  ],
  load(source: ImportSource): Promise<ImportResult> {
    return Promise.resolve(parseGenericDocument(sourceJson(source, "generic"), source.fileName));
  },
};
