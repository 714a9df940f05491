/**
 * The importer contract: one importer per input kind (cloudg's own files,
 * scanner reports, Terraform state and plans, API dumps, IAM authorization
 * details…), each saying how it recognises its input and how it turns it
 * into dataset records. The dispatcher in `detect.ts` runs the detectors of
 * every registered importer in one ordered table, first match wins.
 *
 * @module
 */

import type { DatasetRecords, Json } from "../model/records.ts";

/** What a loader learned while reading: things kept but worth telling the caller. */
export interface LoadNotes {
  /** Source asset types not in the AssetType vocabulary (kept as `OTHER`), counted per original type. */
  unknown_asset_types: Record<string, number>;
  /** Edges dropped because their type is not an EdgeType, counted per original type. */
  unknown_edge_types: Record<string, number>;
  /** Items not turned into records, counted per reason (`passed check`, `data source`, …). */
  skipped: Record<string, number>;
  /** Findings of our rule set in the loaded dataset (the rules run on every load). */
  rule_findings: number;
  /** Findings that map to no asset of the dataset through the reference tiers. */
  unmapped_findings: number;
  /** Other remarks, one sentence each (never containing input values). */
  warnings: string[];
}

/** Fresh, empty notes. */
export function emptyNotes(): LoadNotes {
  return {
    unknown_asset_types: {},
    unknown_edge_types: {},
    skipped: {},
    rule_findings: 0,
    unmapped_findings: 0,
    warnings: [],
  };
}

/** A directory being loaded, as detectors see it. */
export interface DirectoryListing {
  /** The directory's real path. */
  readonly path: string;
  /** Names of its direct entries, sorted. */
  readonly names: readonly string[];
  /** Whether a direct entry of that name is a regular file. */
  hasFile(name: string): boolean;
  /**
   * Relative paths (`/`-separated) of the files below it, breadth first, not
   * following symlinked directories, within a depth and entry bound.
   */
  walk(options?: WalkOptions): Promise<string[]>;
}

/** Bounds of {@linkcode DirectoryListing.walk}. */
export interface WalkOptions {
  /** Deepest level visited (1 = direct entries). @default 6 */
  maxDepth?: number;
  /** Most entries visited. @default 10000 */
  maxEntries?: number;
}

/** One input being loaded. */
export interface ImportSource {
  /** The real path (already through the root fence). */
  readonly path: string;
  /** The base name of the file or directory. */
  readonly fileName: string;
  /** The directory listing, for a directory. */
  readonly listing?: DirectoryListing;
  /** The file's text, for a file. */
  readonly text?: string;
  /** The parsed document, for a file that is valid JSON. */
  readonly json?: unknown;
}

/** One entry of a directory listed through {@linkcode ImportContext.listDirectory}. */
export interface DirectoryEntry {
  /** The entry's name. */
  name: string;
  /** Whether it is a regular file. */
  isFile: boolean;
  /** Whether it is a directory. */
  isDirectory: boolean;
}

/** Services an importer may use while loading. */
export interface ImportContext {
  /** Resolves a path through the root fence (throws when outside); use it for every extra file. */
  fence(path: string): Promise<string>;
  /** Reads a file (through the fence) as text, refusing files over the size limit. */
  readText(path: string): Promise<string>;
  /** Reads a JSON file (through the fence), with a positioned error when malformed. */
  readJson(path: string): Promise<unknown>;
  /** Lists a directory (through the fence), entries sorted by name. */
  listDirectory(path: string): Promise<DirectoryEntry[]>;
  /** The largest file `readText` and `readJson` read, in bytes (the loader's limit). */
  readonly maxBytes?: number;
}

/** What an importer's `load` receives: the input and the services to read more of it. */
export type ImportInput = ImportSource & ImportContext;

/** What an importer produces. */
export interface ImportResult {
  /** The records. */
  records: DatasetRecords;
  /** What the loader noticed. */
  notes: LoadNotes;
  /** Facts about the source kept with the dataset (`findings_source`, scan ids…). @default {} */
  metadata?: Record<string, Json>;
  /** A default dataset name when the importer knows a better one than the file stem. */
  defaultName?: string;
}

/**
 * One detection rule. `stage` says what it looks at; `order` places it in the
 * one table of all rules (lower first, first match wins):
 * - `directory`: the listing of a directory;
 * - `file_name`: the base name of a file, before it is parsed;
 * - `json`: the parsed value of a JSON file (object or array);
 * - `json_lines`: the first record of a file that is not JSON but whose first line is;
 * - `text_header`: the first line of a text file that is neither (a CSV header).
 */
export type Detector =
  | {
    stage: "directory";
    order: number;
    test(listing: DirectoryListing): boolean | Promise<boolean>;
  }
  | { stage: "file_name"; order: number; test(fileName: string): boolean }
  | { stage: "json"; order: number; test(value: unknown): boolean }
  | { stage: "json_lines"; order: number; test(first: unknown): boolean }
  | { stage: "text_header"; order: number; test(firstLine: string): boolean };

/**
 * An input kind. Register it with `ImporterRegistry.register` (detect.ts);
 * `kind: "auto"` then tries its detectors in table order.
 *
 * @example
 * ```ts
 * import { DETECTION_ORDER, emptyNotes, type Importer } from "./importer.ts";
 * import { emptyRecords } from "../model/records.ts";
 *
 * export const tfstateImporter: Importer = {
 *   kind: "terraform",
 *   description: "Terraform state (terraform.tfstate)",
 *   detectors: [{
 *     stage: "json",
 *     order: DETECTION_ORDER.json_generic_object + 50,
 *     test: (v) => typeof v === "object" && v !== null && "terraform_version" in v,
 *   }],
 *   load(input) {
 *     const records = emptyRecords();
 *     // … read input.json into records.assets / records.edges …
 *     return Promise.resolve({ records, notes: emptyNotes(), metadata: {} });
 *   },
 * };
 * ```
 */
export interface Importer {
  /** The `kind` argument value that selects it (`inventory`, `report`, `prowler`…). */
  readonly kind: string;
  /** One line saying what input it reads. */
  readonly description: string;
  /** How `kind: "auto"` recognises its input; empty when only an explicit kind selects it. */
  readonly detectors: readonly Detector[];
  /** Reads the input; throws a `LoadError` (or another `CloudError`) on bad input. */
  load(input: ImportInput): Promise<ImportResult>;
}

/**
 * The places of the reference detection table (§4.2), so importers added
 * later slot in between: directories, then file names, then JSON objects,
 * then JSON arrays, then JSON Lines.
 */
export const DETECTION_ORDER = {
  directory_inventory: 100,
  directory_report: 200,
  directory_scoutsuite: 300,
  directory_checkov: 400,
  /** An AWS API dump: one folder per region (after the named files above). */
  directory_aws_api: 500,
  file_name_scoutsuite: 100,
  json_report: 100,
  json_inventory: 200,
  /** ASFF under a lower-case `findings` key (or an EventBridge event), ahead of generic JSON. */
  json_asff_lower_case: 250,
  json_generic_object: 300,
  /** Shapes of their own, disjoint from the rows around them. */
  json_terraform_state: 340,
  json_terraform_plan: 350,
  json_iam_authorization: 360,
  json_trivy: 400,
  json_checkov_object: 500,
  json_prowler_object: 600,
  json_checkov_array: 700,
  /** OCSF is read here, where the reference refuses it. */
  json_ocsf: 750,
  json_prowler_array: 800,
  json_generic_array: 900,
  json_lines_prowler: 100,
  json_lines_ocsf: 110,
  text_prowler_csv: 100,
} as const;
