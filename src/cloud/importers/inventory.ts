/**
 * cloudg's `inventory-map.json`: `{summary, providers, regions, assets,
 * edges, unresolved_references}`. A `findings.json` beside it is merged in
 * (its findings and compliance results), its path kept in metadata
 * `findings_source`.
 *
 * @module
 */

import { basename, dirname, join } from "node:path";
import { LoadError } from "../model/errors.ts";
import type { Json } from "../model/records.ts";
import {
  DETECTION_ORDER,
  emptyNotes,
  type ImportContext,
  type Importer,
  type ImportResult,
} from "./importer.ts";
import { isObject } from "./import_input.ts";
import { mergeFindings, parseRecords } from "./parse_records.ts";
import { REPORT_FILE_NAME } from "./report.ts";
import { documentObject, fileStem, namedFileImporter } from "./source_json.ts";

/** The inventory file an inventory directory holds. */
export const INVENTORY_FILE_NAME = "inventory-map.json";

/** Whether a JSON value is an inventory document: `assets`, `edges` and (`unresolved_references` or `regions`). */
export function isInventoryDocument(value: unknown): boolean {
  return isObject(value) && "assets" in value && "edges" in value &&
    ("unresolved_references" in value || "regions" in value);
}

async function siblingFindings(
  directory: string,
  context: ImportContext,
): Promise<{ path: string; doc: unknown } | null> {
  let path: string;
  try {
    const info = await Deno.stat(join(directory, REPORT_FILE_NAME));
    if (!info.isFile) return null;
    path = await context.fence(join(directory, REPORT_FILE_NAME));
  } catch {
    return null;
  }
  return { path, doc: await context.readJson(path) };
}

/** Reads an inventory document and merges an optional findings document. */
export function parseInventoryDocument(
  doc: unknown,
  fileName: string,
  findings: { path: string; doc: unknown } | null,
): ImportResult {
  const inventory = documentObject(doc, fileName, {
    label: "an inventory",
    missing: (d) =>
      "assets" in d ? null : "it has no assets (an inventory-map.json is " +
        "{summary, providers, regions, assets, edges, unresolved_references}).",
  });
  const notes = emptyNotes();
  const records = parseRecords(inventory, notes);
  const metadata: Record<string, Json> = {};
  if (findings) {
    const body = Array.isArray(findings.doc) ? { findings: findings.doc } : findings.doc;
    if (!isObject(body)) {
      throw new LoadError(`Cannot load ${REPORT_FILE_NAME}: the document must be a JSON object.`);
    }
    const extra = parseRecords(
      {
        findings: body["findings"],
        compliance: body["compliance"],
        suppression_reasons: body["suppression_reasons"],
      },
      emptyNotes(),
    );
    mergeFindings(records, extra);
    metadata["findings_source"] = findings.path;
  }
  return { records, notes, metadata };
}

/** The `inventory` importer. */
export const inventoryImporter: Importer = namedFileImporter({
  kind: "inventory",
  description: "cloudg inventory-map.json (or a directory holding it, with findings.json merged)",
  fileName: INVENTORY_FILE_NAME,
  order: { directory: DETECTION_ORDER.directory_inventory, json: DETECTION_ORDER.json_inventory },
  isDocument: isInventoryDocument,
  async read({ doc, fileName }, input): Promise<ImportResult> {
    const directory = input.listing ? input.path : dirname(input.path);
    const result = parseInventoryDocument(doc, fileName, await siblingFindings(directory, input));
    if (input.listing) return result;
    if (input.fileName === INVENTORY_FILE_NAME) result.defaultName = basename(directory);
    else result.defaultName = fileStem(input.fileName);
    return result;
  },
});
