/**
 * One loaded dataset: its records, identity (name, version, load instance)
 * and the cache of views derived from it, dropped whenever it changes.
 *
 * @module
 */

import type { Asset, DatasetRecords, Finding, Json } from "../model/records.ts";
import { assetIndex, mapFindingToAsset } from "../model/references.ts";
import type { DatasetView } from "../model/view.ts";
import { pushTo } from "../../core/multimap.ts";
import { markPublicGrantTargets } from "../graph/internet.ts";

/** Keys of derived views other modules cache, so listings can tell what is built. */
export const DERIVED_VIEW_KEYS = {
  graph: "graph",
  flow_graph: "flow_graph",
  dependency_graph: "dependency_graph",
  ontology: "ontology",
  centrality: "centrality",
  rag_entity: "rag_entity",
  summary: "summary",
} as const;

const FINDING_MAP_KEY = "finding_assets";

interface FindingMap {
  assetOf: Map<Finding, Asset | null>;
  byAsset: Map<string, Finding[]>;
}

/** How a dataset was made. */
export interface DatasetInit {
  /** Its name in the workspace. */
  name: string;
  /** The records (owned by the dataset from now on). */
  records: DatasetRecords;
  /** `inventory`, `report`, `generic`, `snapshot`, `demo`, a scanner name… */
  kind: string;
  /** Where it came from (a path, `snapshot of <name>`, `demo`…). */
  source: string;
  /** Facts about the source. @default {} */
  metadata?: Record<string, Json>;
  /** When it was loaded, ISO 8601 UTC. @default now */
  loadedAt?: string;
}

function randomHex(bytes: number): string {
  const buffer = crypto.getRandomValues(new Uint8Array(bytes));
  return [...buffer].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A dataset in the workspace; implements the query-facing {@linkcode DatasetView}. */
export class Dataset implements DatasetView {
  /** Its name. */
  readonly name: string;
  /** Random per load. */
  readonly instanceId: string;
  /** The records. */
  readonly records: DatasetRecords;
  /** How it was made. */
  readonly kind: string;
  /** Where it came from. */
  readonly source: string;
  /** Facts about the source. */
  readonly metadata: Record<string, Json>;
  /** When it was loaded, ISO 8601 UTC. */
  readonly loadedAt: string;
  #version = 0;
  #cache = new Map<string, unknown>();

  /**
   * Wraps records as a dataset at version 0 with a fresh instance id; the
   * targets of public grants are flagged internet-exposed.
   */
  constructor(init: DatasetInit) {
    this.name = init.name;
    this.records = init.records;
    markPublicGrantTargets(this.records);
    this.kind = init.kind;
    this.source = init.source;
    this.metadata = init.metadata ?? {};
    this.loadedAt = init.loadedAt ?? new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
    this.instanceId = randomHex(8);
  }

  /** Bumped by every mutation. */
  get version(): number {
    return this.#version;
  }

  /** An asset by internal id. */
  asset(id: string): Asset | undefined {
    return assetIndex(this).byId.get(id);
  }

  #findingMap(): FindingMap {
    return this.derived(FINDING_MAP_KEY, () => {
      const index = assetIndex(this);
      const assetOf = new Map<Finding, Asset | null>();
      const byAsset = new Map<string, Finding[]>();
      for (const finding of this.records.findings) {
        const asset = mapFindingToAsset(index, finding) ?? null;
        assetOf.set(finding, asset);
        if (asset) {
          pushTo(byAsset, asset.id, finding);
        }
      }
      return { assetOf, byAsset };
    });
  }

  /** The asset a finding maps to, if any. */
  findingAsset(finding: Finding): Asset | undefined {
    const known = this.#findingMap().assetOf.get(finding);
    if (known !== undefined) return known ?? undefined;
    return mapFindingToAsset(assetIndex(this), finding);
  }

  /** Findings mapped to an asset, suppressed ones included, in dataset order. */
  findingsFor(assetId: string): readonly Finding[] {
    return this.#findingMap().byAsset.get(assetId) ?? [];
  }

  /** A view cached for this version. */
  derived<T>(key: string, build: () => T): T {
    if (this.#cache.has(key)) return this.#cache.get(key) as T;
    const value = build();
    this.#cache.set(key, value);
    return value;
  }

  /** Whether a derived view is currently cached. */
  isCached(key: string): boolean {
    return this.#cache.has(key);
  }

  /**
   * Records a mutation: flags the targets of public grants the change added,
   * drops every cached view and bumps the version.
   */
  invalidate(): void {
    markPublicGrantTargets(this.records);
    this.#cache.clear();
    this.#version++;
  }
}
