/**
 * One ontology engine per dataset of a workspace. An engine holds the store
 * of one dataset version (in its worker); the registry hands out the engine
 * of a dataset, replaces it when the dataset was reloaded under the same
 * name, and closes engines whose dataset was unloaded, replaced or changed,
 * so no worker outlives the data it was built from.
 *
 * @module
 */

import type { DatasetView } from "../model/view.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { OntologyEngine, type OntologyEngineOptions } from "./engine.ts";

/** The identity of a dataset state, as the registry compares it. */
export type DatasetIdentity = Pick<DatasetView, "name" | "version" | "instanceId">;

interface Entry {
  engine: OntologyEngine;
  instanceId: string;
  version: number;
}

/**
 * The engines of one workspace, by dataset name.
 *
 * @example
 * ```ts
 * import { OntologyRegistry } from "./registry.ts";
 * const registry = new OntologyRegistry();
 * registry.size; // 0
 * registry.close();
 * ```
 */
export class OntologyRegistry {
  readonly #options: OntologyEngineOptions;
  readonly #entries = new Map<string, Entry>();
  #closed = false;

  /** No engine starts until a dataset asks for one. */
  constructor(options: OntologyEngineOptions = {}) {
    this.#options = options;
  }

  /** Engines currently held. */
  get size(): number {
    return this.#entries.size;
  }

  /** Whether {@link close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * The engine of `dataset`, started on first use. An engine kept for an
   * earlier load of a dataset with the same name is closed and replaced;
   * a version change is left to the engine, which rebuilds for the new key.
   */
  engineFor(dataset: DatasetIdentity): OntologyEngine {
    if (this.#closed) throw new Error("The ontology registry is closed.");
    const entry = this.#entries.get(dataset.name);
    if (entry !== undefined && entry.instanceId === dataset.instanceId) {
      entry.version = dataset.version;
      return entry.engine;
    }
    entry?.engine.close();
    const engine = new OntologyEngine(this.#options);
    this.#entries.set(dataset.name, {
      engine,
      instanceId: dataset.instanceId,
      version: dataset.version,
    });
    return engine;
  }

  /**
   * Closes the engines whose dataset is gone (`current` gives null), was
   * reloaded (another instance) or changed (another version) since the
   * engine was last handed out; returns the names dropped.
   */
  prune(current: (name: string) => DatasetIdentity | null): string[] {
    const dropped: string[] = [];
    for (const [name, entry] of [...this.#entries]) {
      const now = current(name);
      if (now !== null && now.instanceId === entry.instanceId && now.version === entry.version) {
        continue;
      }
      entry.engine.close();
      this.#entries.delete(name);
      dropped.push(name);
    }
    return dropped;
  }

  /** Closes every engine; later {@link engineFor} calls throw. */
  close(): void {
    this.#closed = true;
    for (const entry of this.#entries.values()) entry.engine.close();
    this.#entries.clear();
  }
}

const REGISTRIES = new WeakMap<Workspace, OntologyRegistry>();

/**
 * The registry of a workspace, made on first use. It follows the
 * workspace's change events and closes engines of datasets that were
 * unloaded, replaced or changed.
 */
export function ontologyRegistryOf(
  workspace: Workspace,
  options: OntologyEngineOptions = {},
): OntologyRegistry {
  let registry = REGISTRIES.get(workspace);
  if (registry === undefined || registry.closed) {
    const made = new OntologyRegistry(options);
    const unsubscribe = workspace.onChange(() => {
      if (made.closed) {
        unsubscribe();
        return;
      }
      made.prune((name) => (workspace.has(name) ? workspace.dataset(name) : null));
    });
    REGISTRIES.set(workspace, made);
    registry = made;
  }
  return registry;
}

/** Closes the workspace's ontology engines, if it has any. */
export function closeOntologies(workspace: Workspace): void {
  REGISTRIES.get(workspace)?.close();
  REGISTRIES.delete(workspace);
}
