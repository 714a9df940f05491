/**
 * The importer registry and the loader entry point: fences the path, reads
 * the input (directory listing, or file text within the size limit), picks
 * the importer (explicit kind, or the first matching detection rule of all
 * registered importers, §4.2) and runs it.
 *
 * @module
 */

import { basename } from "node:path";
import { LoadError } from "../model/errors.ts";
import { parseEnum } from "../model/parse_enum.ts";
import { genericImporter } from "./generic.ts";
import type { Detector, ImportContext, Importer, ImportResult, ImportSource } from "./importer.ts";
import { inventoryImporter } from "./inventory.ts";
import {
  firstJsonLine,
  listDirectory,
  looksLikeJson,
  MAX_INPUT_BYTES,
  parseJsonText,
  readTextFile,
} from "./read.ts";
import { reportImporter } from "./report.ts";
import { fileStem } from "./source_json.ts";

/** The importers built into this module, in registration order. */
export const BUILTIN_IMPORTERS: readonly Importer[] = [
  inventoryImporter,
  reportImporter,
  genericImporter,
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
  /** Largest file read, in bytes. @default MAX_INPUT_BYTES */
  maxBytes?: number;
}

/** A loaded input, ready to become a dataset. */
export interface LoadedInput extends ImportResult {
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
    let json: unknown;
    if (looksLikeJson(text)) {
      // Malformed JSON is reported with its position, whatever kind was asked for.
      json = parseJsonText(text, fileName);
    }
    source = { path: real, fileName, text, ...(json === undefined ? {} : { json }) };
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
  const context: ImportContext = {
    fence: options.fence,
    readText: async (p) => readTextFile(await options.fence(p), maxBytes),
    readJson: async (p) => {
      const fenced = await options.fence(p);
      return parseJsonText(await readTextFile(fenced, maxBytes), basename(fenced));
    },
  };
  const result = await importer.load(source, context);
  return {
    ...result,
    kind: importer.kind,
    path: real,
    defaultName: result.defaultName ?? (source.listing ? fileName : fileStem(fileName)),
  };
}
