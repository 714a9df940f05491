/**
 * Accumulates the assets and edges of one load: de-duplicates assets by id
 * (merging metadata), de-duplicates edges by their endpoints and rule, counts
 * unknown source types, and finishes with providers and regions filled in.
 *
 * @module
 */

import type { AssetType, CloudProvider } from "../model/enums.ts";
import type { Asset, DatasetRecords, Edge, EdgeInit, Json } from "../model/records.ts";
import { emptyRecords, newEdge } from "../model/records.ts";
import { uniqueIds } from "../model/unique_ids.ts";
import { emptyNotes, type ImportResult, type LoadNotes } from "./importer.ts";

/** Source CIDRs and wildcards that mean "anyone on the internet". */
export const INTERNET_SOURCES: ReadonlySet<string> = new Set([
  "0.0.0.0/0",
  "::/0",
  "*",
  "internet",
  "any",
  "0.0.0.0",
]);

/** Whether a source address means the whole internet (`0.0.0.0/0`, `::/0`, `*`, `Internet`). */
export function isInternetSource(source: string): boolean {
  return INTERNET_SOURCES.has(source.trim().toLowerCase());
}

/** The placeholder node id for an internet source: `::/0` for IPv6, else `0.0.0.0/0`. */
export function internetPlaceholder(source: string): string {
  return source.trim() === "::/0" ? "::/0" : "0.0.0.0/0";
}

/** The fields an asset is added with; the rest default. */
export interface AssetInit {
  id: string;
  arn?: string | null;
  name: string;
  asset_type: AssetType;
  provider: CloudProvider;
  region?: string | null;
  account_id?: string | null;
  tags?: Record<string, string>;
  metadata?: Record<string, Json>;
  is_internet_exposed?: boolean;
}

/** The fields an edge is added with; the rest default. */
export type { EdgeInit };

/** Ports listed by a `from-to` range when it is short, else none (the range says it). */
export function portsOf(from: number | null, to: number | null): number[] {
  if (from === null || to === null || from < 0 || to < from) return [];
  if (to - from > 64) return [];
  const out: number[] = [];
  for (let p = from; p <= to; p++) out.push(p);
  return out;
}

/** `80`, `80-443`, or `*` (all ports) from a from/to pair; `-1`/`0-65535`/missing → `*`. */
export function portRange(from: number | null, to: number | null): string {
  if (from === null || to === null || from < 0 || to < 0) return "*";
  if (from === 0 && (to === 0 || to === 65535)) return "*";
  return from === to ? String(from) : `${from}-${to}`;
}

/** Normalised protocol name: `-1`/`all`/`*` → ALL, 6 → TCP, 17 → UDP, 1 → ICMP. */
export function protocolName(protocol: unknown): string {
  const p = String(protocol ?? "").trim().toLowerCase();
  if (p === "-1" || p === "all" || p === "*" || p === "") return "ALL";
  if (p === "6") return "TCP";
  if (p === "17") return "UDP";
  if (p === "1" || p === "icmpv6" || p === "58") return "ICMP";
  return p.toUpperCase();
}

/** Whether a port range string covers a port (`*` covers all; `22`, `0-1024`, `22,80`). */
export function rangeCovers(range: string | null, port: number): boolean {
  if (range === null || range === "*" || range === "") return true;
  for (const part of range.split(",")) {
    const [a, b] = part.trim().split("-");
    const lo = Number(a);
    const hi = b === undefined ? lo : Number(b);
    if (Number.isFinite(lo) && Number.isFinite(hi) && lo <= port && port <= hi) return true;
  }
  return false;
}

/** Builds the records of one load. */
export class RecordsBuilder {
  /** The records built so far. */
  readonly records: DatasetRecords = emptyRecords();
  /** The notes of the load. */
  readonly notes: LoadNotes = emptyNotes();
  /** Timestamp given to every asset of this load. */
  readonly collectedAt: string;
  readonly #assets = new Map<string, Asset>();
  readonly #edges = new Map<string, Edge>();
  readonly #edgeId = uniqueIds();
  readonly #pairs = new Set<string>();

  /** Creates a builder; `collectedAt` defaults to now. */
  constructor(collectedAt: string = new Date().toISOString()) {
    this.collectedAt = collectedAt;
  }

  /** An asset by id. */
  asset(id: string): Asset | undefined {
    return this.#assets.get(id);
  }

  /** Every asset so far. */
  assets(): IterableIterator<Asset> {
    return this.#assets.values();
  }

  /** Adds an asset, or merges tags/metadata into the one with the same id. */
  addAsset(init: AssetInit): Asset {
    const existing = this.#assets.get(init.id);
    if (existing) {
      Object.assign(existing.tags, init.tags ?? {});
      Object.assign(existing.metadata, init.metadata ?? {});
      if (init.arn && !existing.arn) existing.arn = init.arn;
      if (init.is_internet_exposed) existing.is_internet_exposed = true;
      return existing;
    }
    const asset: Asset = {
      id: init.id,
      arn: init.arn ?? null,
      name: init.name,
      asset_type: init.asset_type,
      provider: init.provider,
      region: init.region || "global",
      account_id: init.account_id ?? null,
      tags: init.tags ?? {},
      metadata: init.metadata ?? {},
      collected_at: this.collectedAt,
      is_internet_exposed: init.is_internet_exposed ?? false,
    };
    this.#assets.set(asset.id, asset);
    this.records.assets.push(asset);
    return asset;
  }

  /**
   * Adds an edge unless the same one (type, endpoints, ports, protocol, CIDR,
   * direction) exists. Self-loops are dropped, except a firewall rule's: a
   * security group that admits its own members (AWS `self`, or its own id as
   * the source group) says which ports they open to each other. Returns the
   * edge kept.
   */
  addEdge(init: EdgeInit): Edge | undefined {
    if (init.source_id === init.target_id && init.edge_type !== "SECURITY_GROUP_RULE") {
      return undefined;
    }
    const key = [
      init.edge_type,
      init.source_id,
      init.target_id,
      init.port_range ?? "",
      init.protocol ?? "",
      init.cidr ?? "",
      init.direction ?? "ingress",
    ].join("\u0000");
    const existing = this.#edges.get(key);
    if (existing) {
      if (init.properties) Object.assign(existing.properties, init.properties);
      return existing;
    }
    const base = `${init.edge_type}:${init.source_id}->${init.target_id}`;
    const edge = newEdge(this.#edgeId(base), init);
    this.#edges.set(key, edge);
    this.#pairs.add(`${edge.source_id}\u0000${edge.target_id}`);
    this.records.edges.push(edge);
    return edge;
  }

  /** Whether any edge (any type) joins the two ids in either direction. */
  connected(a: string, b: string): boolean {
    return this.#pairs.has(`${a}\u0000${b}`) || this.#pairs.has(`${b}\u0000${a}`);
  }

  /** Counts a source type kept as `OTHER`. */
  countUnknown(type: string): void {
    this.notes.unknown_asset_types[type] = (this.notes.unknown_asset_types[type] ?? 0) + 1;
  }

  /** Counts an item not turned into an asset. */
  skip(reason: string, count = 1): void {
    this.notes.skipped[reason] = (this.notes.skipped[reason] ?? 0) + count;
  }

  /** Adds a warning (kept to 100). */
  warn(message: string): void {
    if (this.notes.warnings.length < 100) this.notes.warnings.push(message);
  }

  /** Fills providers and regions from the assets and returns the result. */
  finish(): ImportResult {
    const providers = new Set<string>(this.records.providers);
    const regions = new Set<string>(this.records.regions);
    for (const asset of this.records.assets) {
      providers.add(asset.provider);
      if (asset.region !== "global") regions.add(asset.region);
    }
    this.records.providers = [...providers].sort();
    this.records.regions = [...regions].sort();
    return { records: this.records, notes: this.notes };
  }
}
