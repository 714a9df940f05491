/**
 * The workspace (§4.1–4.5): named datasets in insertion order, the active
 * one, loading through the injected root fence, snapshots, suppression, and
 * change events for the MCP layer to turn into notifications.
 *
 * @module
 */

import {
  DatasetExistsError,
  InvalidArgumentError,
  NoDatasetError,
  UnknownDatasetError,
} from "../model/errors.ts";
import type { DatasetRecords, Json } from "../model/records.ts";
import { datasetSummaryUri, URI_SCHEME } from "../model/briefs.ts";
import { type Fence, ImporterRegistry, type LoadedInput, loadInput } from "../importers/detect.ts";
import type { LoadNotes } from "../importers/importer.ts";
import { Dataset } from "./dataset.ts";
import { checkDatasetName, sanitizeName, uniqueName } from "./naming.ts";
import { describeDataset, type ListingEntry } from "./summary.ts";

/** Most datasets held at once. */
export const MAX_DATASETS = 16;

/** `cloudg://workspace`. */
export const WORKSPACE_URI = `${URI_SCHEME}workspace`;
/** `cloudg://datasets`. */
export const DATASETS_URI = `${URI_SCHEME}datasets`;

/** A change the MCP layer reports: the resource list changed, or one resource was updated. */
export type WorkspaceEvent = { type: "list_changed" } | { type: "updated"; uri: string };

/** Receives workspace events, synchronously, in order. */
export type WorkspaceListener = (event: WorkspaceEvent) => void;

/** Options of {@linkcode Workspace}. */
export interface WorkspaceOptions {
  /** Resolves paths through the root fence; without one, loading from paths is refused. */
  fence?: Fence;
  /** Importers for `load`. @default the built-in importers */
  registry?: ImporterRegistry;
  /** Most datasets held. @default 16 */
  maxDatasets?: number;
  /** Largest input file `load` and `read` accept, in bytes. @default MAX_INPUT_BYTES (256 MiB) */
  maxBytes?: number;
}

/** Options of {@linkcode Workspace.add}. */
export interface AddOptions {
  /** How the records were made. @default "generic" */
  kind?: string;
  /** Where they came from. @default the kind */
  source?: string;
  /** Facts about the source. */
  metadata?: Record<string, Json>;
  /** Make it the active dataset. @default true */
  activate?: boolean;
  /** Replace a dataset of the same name. @default false */
  replace?: boolean;
  /** Load time, ISO 8601 UTC. @default now */
  loadedAt?: string;
}

/** What {@linkcode Workspace.add} did. */
export interface AddOutcome {
  /** Dataset name. */
  dataset: Dataset;
  /** Whether a dataset of that name was replaced. */
  replaced: boolean;
  /** Datasets dropped to stay within the limit. */
  evicted: string[];
}

/** Options of {@linkcode Workspace.load}. */
export interface LoadOptions {
  /** Dataset name; empty → a default from the path. */
  name?: string;
  /** `auto` or an importer kind. @default "auto" */
  kind?: string;
  /** Make the loaded dataset active. @default true */
  activate?: boolean;
  /** Replace a dataset of the same name. @default false */
  replace?: boolean;
}

/** What {@linkcode Workspace.load} did. */
export interface LoadOutcome extends AddOutcome {
  /** What the loader noticed (unknown types…). */
  notes: LoadNotes;
}

/** Result of a suppression. */
export interface SuppressOutcome {
  /** Ids newly suppressed. */
  suppressed: string[];
  /** Ids that were already suppressed. */
  already_suppressed: string[];
  /** Ids not in the dataset. */
  not_found: string[];
}

/** Result of lifting suppressions. */
export interface UnsuppressOutcome {
  /** Ids whose suppression was lifted. */
  unsuppressed: string[];
  /** Ids that were not suppressed. */
  not_suppressed: string[];
  /** Ids not in the dataset. */
  not_found: string[];
}

/** The set of loaded datasets. */
export class Workspace {
  #datasets = new Map<string, Dataset>();
  #active: string | null = null;
  #listeners = new Set<WorkspaceListener>();
  #fence: Fence | undefined;
  #registry: ImporterRegistry;
  #max: number;
  #maxBytes: number | undefined;

  /** An empty workspace. */
  constructor(options: WorkspaceOptions = {}) {
    this.#fence = options.fence;
    this.#registry = options.registry ?? new ImporterRegistry();
    this.#max = options.maxDatasets ?? MAX_DATASETS;
    this.#maxBytes = options.maxBytes;
  }

  /** The importers `load` chooses from. */
  get registry(): ImporterRegistry {
    return this.#registry;
  }

  /** Subscribes to change events; returns the unsubscribe function. */
  onChange(listener: WorkspaceListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(...events: WorkspaceEvent[]): void {
    for (const event of events) {
      for (const listener of this.#listeners) {
        try {
          listener(event);
        } catch {
          // A failing listener must not break the workspace.
        }
      }
    }
  }

  #updated(name: string): WorkspaceEvent[] {
    return [
      { type: "updated", uri: WORKSPACE_URI },
      { type: "updated", uri: DATASETS_URI },
      { type: "updated", uri: datasetSummaryUri(name) },
    ];
  }

  /** Loaded names, insertion order. */
  names(): string[] {
    return [...this.#datasets.keys()];
  }

  /** The active dataset's name, or null. */
  get activeName(): string | null {
    return this.#active;
  }

  /** How many datasets are loaded. */
  get size(): number {
    return this.#datasets.size;
  }

  /** Whether a name is loaded. */
  has(name: string): boolean {
    return this.#datasets.has(name);
  }

  /**
   * The dataset of that name, or the active one when the name is empty.
   * Throws {@linkcode NoDatasetError} when nothing is loaded and
   * {@linkcode UnknownDatasetError} (data `{value, datasets}`) for an unknown name.
   */
  dataset(name?: string | null): Dataset {
    if (this.#datasets.size === 0) {
      throw new NoDatasetError(
        "No dataset is loaded: call load_dataset with a path to an inventory, report or " +
          "scanner output first.",
        name ? { value: name } : {},
      );
    }
    const wanted = name ? name : this.#active;
    const found = wanted === null ? undefined : this.#datasets.get(wanted);
    if (!found) {
      throw new UnknownDatasetError(
        "No dataset of that name is loaded; the loaded ones are in data.datasets.",
        { value: name, datasets: this.names().map((n) => ({ dataset: n })) },
      );
    }
    return found;
  }

  #named(name: string): Dataset {
    if (typeof name !== "string" || name === "") {
      throw new InvalidArgumentError("Pass the name of a loaded dataset.", { value: name });
    }
    return this.dataset(name);
  }

  /** The dataset if loaded, else undefined (never throws). */
  find(name?: string | null): Dataset | undefined {
    const wanted = name ? name : this.#active;
    return wanted === null ? undefined : this.#datasets.get(wanted);
  }

  #checkFree(name: string, replace: boolean): void {
    checkDatasetName(name);
    if (!replace && this.#datasets.has(name)) {
      throw new DatasetExistsError(
        "A dataset of that name is already loaded; pass replace=true or choose another name " +
          "(data.suggested is free).",
        { value: name, existing: name, suggested: uniqueName(name, (n) => this.#datasets.has(n)) },
      );
    }
  }

  /** Adds records as a dataset (events: list_changed when the name is new, then three updates). */
  add(name: string, records: DatasetRecords, options: AddOptions = {}): AddOutcome {
    const replace = options.replace ?? false;
    this.#checkFree(name, replace);
    const kind = options.kind ?? "generic";
    const dataset = new Dataset({
      name,
      records,
      kind,
      source: options.source ?? kind,
      ...(options.metadata ? { metadata: options.metadata } : {}),
      ...(options.loadedAt ? { loadedAt: options.loadedAt } : {}),
    });
    return this.#insert(dataset, options.activate ?? true);
  }

  #insert(dataset: Dataset, activate: boolean): AddOutcome {
    const name = dataset.name;
    const replaced = this.#datasets.has(name);
    const evicted: string[] = [];
    if (!replaced) {
      while (this.#datasets.size >= this.#max) {
        const victim = [...this.#datasets.keys()].find((n) => n !== this.#active);
        if (victim === undefined) break;
        this.#datasets.delete(victim);
        evicted.push(victim);
      }
    }
    this.#datasets.set(name, dataset);
    if (activate || this.#active === null || !this.#datasets.has(this.#active)) {
      this.#active = name;
    }
    this.#emit(...(replaced ? [] : [{ type: "list_changed" } as const]), ...this.#updated(name));
    return { dataset, replaced, evicted };
  }

  /**
   * Loads a file or directory (through the fence) as a dataset. An explicit
   * name is checked, and a clash refused, before anything is read; a failed
   * load leaves the workspace unchanged.
   */
  async load(path: string, options: LoadOptions = {}): Promise<LoadOutcome> {
    const replace = options.replace ?? false;
    if (options.name) this.#checkFree(options.name, replace);
    const loaded = await this.read(path, options.kind ? { kind: options.kind } : {});
    let name = options.name;
    if (!name) {
      name = uniqueName(sanitizeName(loaded.defaultName), (n) => this.#datasets.has(n));
    } else {
      this.#checkFree(name, replace);
    }
    const dataset = new Dataset({
      name,
      records: loaded.records,
      kind: loaded.kind,
      source: loaded.path,
      metadata: loaded.metadata,
    });
    const unmapped = dataset.records.findings.filter((f) => !dataset.findingAsset(f)).length;
    const outcome = this.#insert(dataset, options.activate ?? true);
    return { ...outcome, notes: { ...loaded.notes, unmapped_findings: unmapped } };
  }

  /**
   * Reads a file or directory (through the fence) into records without
   * adding it: detection, the importer and our rule set, as `load` does.
   * Throws like `load`; the workspace is never changed.
   */
  async read(path: string, options: { kind?: string } = {}): Promise<LoadedInput> {
    if (!this.#fence) {
      throw new InvalidArgumentError("Loading from paths is not available in this workspace.");
    }
    return await loadInput(path, {
      fence: this.#fence,
      registry: this.#registry,
      ...(options.kind ? { kind: options.kind } : {}),
      ...(this.#maxBytes === undefined ? {} : { maxBytes: this.#maxBytes }),
    });
  }

  /** Makes a dataset active (events: the three updates). */
  select(name: string): Dataset {
    const dataset = this.#named(name);
    this.#active = dataset.name;
    this.#emit(...this.#updated(dataset.name));
    return dataset;
  }

  /**
   * Drops a dataset; when it was active, the most recently added remaining
   * one becomes active (events: list_changed, workspace, datasets).
   */
  remove(name: string): { unloaded: string; active_dataset: string | null; remaining: string[] } {
    const dataset = this.#named(name);
    this.#datasets.delete(dataset.name);
    if (this.#active === dataset.name) {
      const names = this.names();
      this.#active = names.length > 0 ? names[names.length - 1]! : null;
    }
    this.#emit(
      { type: "list_changed" },
      { type: "updated", uri: WORKSPACE_URI },
      { type: "updated", uri: DATASETS_URI },
    );
    return { unloaded: dataset.name, active_dataset: this.#active, remaining: this.names() };
  }

  /** A deep copy under a new name, not activated, version 0. */
  snapshot(newName: string, options: { dataset?: string; replace?: boolean } = {}): Dataset {
    const replace = options.replace ?? false;
    this.#checkFree(newName, replace);
    const source = this.dataset(options.dataset);
    if (source.name === newName) {
      throw new InvalidArgumentError("A snapshot cannot replace the dataset it copies.", {
        value: newName,
      });
    }
    const copy = new Dataset({
      name: newName,
      records: structuredClone(source.records),
      kind: "snapshot",
      source: `snapshot of ${source.name}`,
      metadata: { ...structuredClone(source.metadata), snapshot_of: source.name },
    });
    return this.#insert(copy, false).dataset;
  }

  /**
   * Changes a dataset in place: `change` edits the records and returns
   * whether anything changed; if so the caches drop, the version bumps and
   * the three update events go out.
   */
  mutate<T>(
    name: string | undefined,
    change: (records: DatasetRecords) => { changed: boolean; result: T },
  ): T {
    const dataset = this.dataset(name);
    const { changed, result } = change(dataset.records);
    if (changed) {
      dataset.invalidate();
      this.#emit(...this.#updated(dataset.name));
    }
    return result;
  }

  /** Suppresses findings with a reason (3..500 characters; 1..500 ids). */
  suppress(
    findingIds: readonly string[],
    reason: string,
    options: { dataset?: string } = {},
  ): SuppressOutcome {
    checkIds(findingIds);
    if (typeof reason !== "string" || reason.trim().length < 3 || reason.length > 500) {
      throw new InvalidArgumentError("The reason must be 3 to 500 characters.", {});
    }
    return this.mutate(options.dataset, (records) => {
      const outcome: SuppressOutcome = { suppressed: [], already_suppressed: [], not_found: [] };
      for (const id of new Set(findingIds)) {
        const finding = records.findings.find((f) => f.id === id);
        if (!finding) outcome.not_found.push(id);
        else if (finding.is_suppressed) outcome.already_suppressed.push(id);
        else {
          finding.is_suppressed = true;
          records.suppression_reasons[id] = reason;
          outcome.suppressed.push(id);
        }
      }
      return { changed: outcome.suppressed.length > 0, result: outcome };
    });
  }

  /** Lifts suppressions. */
  unsuppress(findingIds: readonly string[], options: { dataset?: string } = {}): UnsuppressOutcome {
    checkIds(findingIds);
    return this.mutate(options.dataset, (records) => {
      const outcome: UnsuppressOutcome = { unsuppressed: [], not_suppressed: [], not_found: [] };
      for (const id of new Set(findingIds)) {
        const finding = records.findings.find((f) => f.id === id);
        if (!finding) outcome.not_found.push(id);
        else if (!finding.is_suppressed) outcome.not_suppressed.push(id);
        else {
          finding.is_suppressed = false;
          delete records.suppression_reasons[id];
          outcome.unsuppressed.push(id);
        }
      }
      return { changed: outcome.unsuppressed.length > 0, result: outcome };
    });
  }

  /** Listing entries with the active flag. */
  list(): { active_dataset: string | null; datasets: ListingEntry[]; total: number } {
    const datasets = [...this.#datasets.values()].map((d) => ({
      ...describeDataset(d),
      active: d.name === this.#active,
    }));
    return { active_dataset: this.#active, datasets, total: datasets.length };
  }
}

function checkIds(ids: readonly string[]): void {
  if (
    !Array.isArray(ids) || ids.length < 1 || ids.length > 500 ||
    ids.some((id) => typeof id !== "string")
  ) {
    throw new InvalidArgumentError("Pass 1 to 500 finding ids as strings.", {});
  }
}
