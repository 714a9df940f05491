/**
 * The importer registry and the loader entry point: fences the path, reads
 * the input (directory listing, or file text within the size limit), picks
 * the importer (explicit kind, or the first matching detection rule of all
 * registered importers, §4.2), runs it, then runs our rule set over the
 * records (adding only the findings the importer did not already add).
 *
 * @module
 */

import { basename } from "node:path";
import { LoadError } from "../model/errors.ts";
import { parseEnum } from "../model/parse_enum.ts";
import type { Json } from "../model/records.ts";
import { addRuleFindings, RULES_SOURCE_TOOL } from "../rules/rule_evaluate.ts";
import { awsApiImporter } from "./aws_api_dump.ts";
import { checkovImporter } from "./checkov_results.ts";
import { genericImporter } from "./generic.ts";
import { iamAuthorizationImporter } from "./iam_authorization.ts";
import type {
  Detector,
  DirectoryEntry,
  Importer,
  ImportInput,
  ImportResult,
  ImportSource,
  LoadNotes,
} from "./importer.ts";
import { emptyNotes } from "./importer.ts";
import { inventoryImporter } from "./inventory.ts";
import { prowlerAsffImporter } from "./prowler_asff.ts";
import { prowlerOcsfImporter } from "./prowler_ocsf.ts";
import { prowlerCsvImporter } from "./prowler_csv.ts";
import { prowlerImporter } from "./prowler_report.ts";
import {
  firstJsonLine,
  firstLine,
  listDirectory,
  looksLikeJson,
  MAX_INPUT_BYTES,
  parseJsonText,
  type ReadBudget,
  readTextFile,
} from "./read.ts";
import { reportImporter } from "./report.ts";
import { scoutSuiteImporter } from "./scoutsuite_results.ts";
import { fileStem } from "./source_json.ts";
import { terraformPlanImporter } from "./terraform_plan.ts";
import { terraformStateImporter } from "./terraform_state.ts";
import { trivyImporter } from "./trivy_report.ts";

/**
 * The importers built into this module, in registration order (the order
 * `kind` lists them in; detection follows the detectors' own order).
 */
export const BUILTIN_IMPORTERS: readonly Importer[] = [
  inventoryImporter,
  reportImporter,
  genericImporter,
  prowlerImporter,
  prowlerAsffImporter,
  prowlerOcsfImporter,
  prowlerCsvImporter,
  scoutSuiteImporter,
  checkovImporter,
  trivyImporter,
  terraformStateImporter,
  terraformPlanImporter,
  awsApiImporter,
  iamAuthorizationImporter,
];

/** Resolves a path through the root fence, returning the real path; throws when outside. */
export type Fence = (path: string) => Promise<string>;

/** The set of importers `kind: "auto"` chooses from. */
export class ImporterRegistry {
  #importers = new Map<string, Importer>();

  /** A registry holding `importers` (the built-in ones by default). */
  constructor(importers: readonly Importer[] = BUILTIN_IMPORTERS) {
    for (const importer of importers) this.register(importer);
  }

  /** Adds an importer; a kind may be registered once. */
  register(importer: Importer): void {
    if (importer.kind === "auto" || this.#importers.has(importer.kind)) {
      throw new Error(`An importer for kind ${importer.kind} is already registered.`);
    }
    this.#importers.set(importer.kind, importer);
  }

  /** The registered kinds, in registration order. */
  kinds(): string[] {
    return [...this.#importers.keys()];
  }

  /** The importer of a kind, if registered. */
  get(kind: string): Importer | undefined {
    return this.#importers.get(kind);
  }

  /** Every detection rule of one stage, lowest order first (registration order breaks ties). */
  rules<S extends Detector["stage"]>(
    stage: S,
  ): { importer: Importer; detector: Extract<Detector, { stage: S }> }[] {
    const rules: { importer: Importer; detector: Extract<Detector, { stage: S }> }[] = [];
    for (const importer of this.#importers.values()) {
      for (const detector of importer.detectors) {
        if (detector.stage === stage) {
          rules.push({ importer, detector: detector as Extract<Detector, { stage: S }> });
        }
      }
    }
    return rules.sort((a, b) => a.detector.order - b.detector.order);
  }

  /** The importer whose rule first matches the source, or undefined. */
  async detect(source: ImportSource): Promise<Importer | undefined> {
    if (source.listing) {
      for (const { importer, detector } of this.rules("directory")) {
        if (await detector.test(source.listing)) return importer;
      }
      return undefined;
    }
    for (const { importer, detector } of this.rules("file_name")) {
      if (detector.test(source.fileName)) return importer;
    }
    if (source.json !== undefined) {
      for (const { importer, detector } of this.rules("json")) {
        if (detector.test(source.json)) return importer;
      }
      return undefined;
    }
    if (source.text !== undefined) {
      const first = firstJsonLine(source.text);
      if (first !== undefined) {
        for (const { importer, detector } of this.rules("json_lines")) {
          if (detector.test(first)) return importer;
        }
        return undefined;
      }
      const header = firstLine(source.text);
      for (const { importer, detector } of this.rules("text_header")) {
        if (detector.test(header)) return importer;
      }
    }
    return undefined;
  }
}

/** Options of {@linkcode loadInput}. */
export interface LoadInputOptions {
  /** The root fence: returns the real path, throws when the path is outside the roots. */
  fence: Fence;
  /** `auto` or a registered kind. @default "auto" */
  kind?: string;
  /** The importers to choose from. @default a registry of the built-in importers */
  registry?: ImporterRegistry;
  /** Largest file read, in bytes (the operator's `--max-dataset-bytes`). @default MAX_INPUT_BYTES */
  maxBytes?: number;
}

/** A loaded input, ready to become a dataset. */
export interface LoadedInput extends ImportResult {
  /** Facts about the source. */
  metadata: Record<string, Json>;
  /** The kind that read it. */
  kind: string;
  /** The real path read. */
  path: string;
  /** The default dataset name (before the naming rule is applied). */
  defaultName: string;
}

/**
 * Loads a file or directory into records. Requires `--allow-read`.
 * Errors: unknown kind (close matches), path outside the roots (from the
 * fence), unreadable or oversized file, malformed JSON (file, line, column),
 * an input of no known kind (the accepted kinds listed).
 */
export async function loadInput(path: string, options: LoadInputOptions): Promise<LoadedInput> {
  const registry = options.registry ?? new ImporterRegistry();
  const kinds = registry.kinds();
  const kind = parseEnum(options.kind ?? "auto", ["auto", ...kinds], { label: "kind" });
  const maxBytes = options.maxBytes ?? MAX_INPUT_BYTES;
  const real = await options.fence(path);
  const fileName = basename(real);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(real);
  } catch {
    throw new LoadError("The path does not exist or cannot be read.", { value: path });
  }
  let source: ImportSource;
  if (info.isDirectory) {
    source = { path: real, fileName, listing: await listDirectory(real) };
  } else {
    const text = await readTextFile(real, maxBytes);
    if (looksLikeJson(text) && !isJsonLines(text)) {
      // Malformed JSON is reported with its position, whatever kind was asked for. Once parsed,
      // the text is dropped so it is not held beside the tree and the records (an importer
      // that wants it after all reads the file again).
      source = { path: real, fileName, json: parseJsonText(text, fileName) };
    } else {
      source = { path: real, fileName, text };
    }
  }
  let importer: Importer | undefined;
  if (kind === "auto") {
    importer = await registry.detect(source);
    if (!importer) {
      const what = source.listing ? "The directory holds" : "The file is";
      throw new LoadError(
        `${what} no input of a known kind. Accepted kinds: ${kinds.join(", ")}; ` +
          `pass one as kind to read it explicitly.`,
        { valid: kinds },
      );
    }
  } else {
    importer = registry.get(kind)!;
  }
  // Every file read for this input counts against one limit (a directory's files share it).
  const budget: ReadBudget = { input: fileName, used: source.text?.length ?? 0 };
  const input: ImportInput = {
    ...source,
    fence: options.fence,
    readText: async (p) => readTextFile(await options.fence(p), maxBytes, budget),
    readJson: async (p) => {
      const fenced = await options.fence(p);
      return parseJsonText(await readTextFile(fenced, maxBytes, budget), basename(fenced));
    },
    listDirectory: async (p) => directoryEntries(await options.fence(p)),
    maxBytes,
  };
  const result = await importer.load(input);
  addRuleFindings(result.records);
  const notes: LoadNotes = {
    ...emptyNotes(),
    ...result.notes,
    rule_findings: result.records.findings.filter((f) => f.source_tool === RULES_SOURCE_TOOL)
      .length,
  };
  return {
    ...result,
    notes,
    metadata: result.metadata ?? {},
    kind: importer.kind,
    path: real,
    defaultName: result.defaultName ?? (source.listing ? fileName : fileStem(fileName)),
  };
}

/**
 * Whether a text is JSON Lines rather than one document: its first line is a
 * whole JSON object and another non-empty line follows.
 */
export function isJsonLines(text: string): boolean {
  const newline = text.indexOf("\n");
  if (newline < 0 || text.slice(newline + 1).trim() === "") return false;
  const first = firstJsonLine(text);
  return typeof first === "object" && first !== null && !Array.isArray(first);
}

async function directoryEntries(path: string): Promise<DirectoryEntry[]> {
  const out: DirectoryEntry[] = [];
  try {
    for await (const e of Deno.readDir(path)) {
      out.push({ name: e.name, isFile: e.isFile, isDirectory: e.isDirectory });
    }
  } catch {
    throw new LoadError(`Cannot list ${basename(path)}: it is not a readable directory.`);
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
