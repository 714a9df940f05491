/**
 * Retrieval chunks over a dataset's ontology: one per asset
 * (`entity::<asset id>`), one per Louvain community (`community::<n>`) and one
 * per relation group (`relation_group::<GROUP>`), each a short text with
 * metadata, filtered and paged.
 *
 * @module
 */

import {
  RELATION_GROUPS,
  type RelationGroup,
  type RelationType,
  type Severity,
  severityRank,
} from "../model/enums.ts";
import type { Asset, Finding, Json } from "../model/records.ts";
import { displayId, riskScore } from "../model/records.ts";
import type { OntologyInput } from "./abox.ts";
import { AssetReferenceIndex } from "./asset_references.ts";
import { assetClassName, assetFamily } from "./classes.ts";
import { type Communities, louvainCommunities } from "./communities.ts";
import { OntologyArgumentError } from "./errors.ts";
import { inferAssetRelations, inferEdgeRelations } from "../model/relations.ts";
import { pushTo } from "../../core/multimap.ts";

/** The kinds of chunk. */
export const RAG_CHUNK_TYPES = ["entity", "community", "relation_group"] as const;

/** A kind of chunk. */
export type RagChunkType = (typeof RAG_CHUNK_TYPES)[number];

/** One retrieval chunk. */
export interface RagChunk {
  /** Stable id: `entity::<asset id>`, `community::<n>` or `relation_group::<GROUP>`. */
  chunk_id: string;
  /** The kind of chunk. */
  chunk_type: RagChunkType;
  /** The text to embed or show. */
  content: string;
  /** Structured facts about the chunk. */
  metadata: Record<string, Json>;
}

/** Options of {@link RagChunkIndex.page}. */
export interface RagChunkOptions {
  /** Which chunks. @default "entity" */
  chunkType?: RagChunkType;
  /**
   * Only chunks about this asset id: its entity chunk, its community, the
   * relation groups it takes part in. @default undefined
   */
  assetId?: string;
  /** Only chunks whose text holds every word of this (case-insensitive). @default "" */
  query?: string;
  /**
   * Only entity and community chunks with an open finding at least this
   * severe (relation-group chunks are not filtered by it). @default undefined
   */
  minSeverity?: Severity;
  /** Chunks skipped. @default 0 */
  offset?: number;
  /** Chunks returned at most. @default 10 */
  limit?: number;
}

/** One page of chunks. */
export interface RagChunkPage {
  /** Chunks matching the filters. */
  total: number;
  /** Chunks skipped. */
  offset: number;
  /** Chunks in this page. */
  returned: number;
  /** Whether more chunks follow. */
  truncated: boolean;
  /** The chunks. */
  items: RagChunk[];
}

/** One relation between two nodes (asset ids, placeholder ids or references). */
interface Relation {
  subject: string;
  relation: RelationType;
  object: string;
}

const GROUP_OF = new Map<RelationType, RelationGroup>();
for (
  const [group, types] of Object.entries(RELATION_GROUPS) as [
    RelationGroup,
    readonly RelationType[],
  ][]
) {
  for (const type of types) GROUP_OF.set(type, group);
}

const MAX_RELATIONS_SHOWN = 25;
const MAX_FINDINGS_SHOWN = 10;
const MAX_MEMBERS_SHOWN = 50;
const MAX_EXAMPLES_SHOWN = 20;

function countInto(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

function listCounts(counts: Record<string, number>): string {
  return Object.entries(counts).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([key, n]) => `${key} ×${n}`).join(", ");
}

/**
 * The chunks of one ontology input. Relations and communities are computed
 * once on construction; chunk texts are made when first needed.
 */
export class RagChunkIndex {
  readonly #input: OntologyInput;
  readonly #assets = new Map<string, Asset>();
  readonly #sortedIds: string[];
  readonly #relations: Relation[] = [];
  readonly #out = new Map<string, Relation[]>();
  readonly #in = new Map<string, Relation[]>();
  readonly #open = new Map<string, Finding[]>();
  readonly #communities: Communities;
  readonly #cache = new Map<string, RagChunk>();
  readonly #labels = new Map<string, string>();

  /** Infers the relations, maps open findings and finds the communities. */
  constructor(input: OntologyInput, options: { seed?: number } = {}) {
    this.#input = input;
    for (const asset of input.assets) this.#assets.set(asset.id, asset);
    this.#sortedIds = [...this.#assets.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const seen = new Set<string>();
    const add = (relation: Relation): void => {
      const key = `${relation.subject}\u0000${relation.relation}\u0000${relation.object}`;
      if (seen.has(key)) return;
      seen.add(key);
      this.#relations.push(relation);
      for (
        const [map, node] of [[this.#out, relation.subject], [this.#in, relation.object]] as const
      ) {
        pushTo(map, node, relation);
      }
    };
    const references = new AssetReferenceIndex(input.assets);
    for (const asset of input.assets) {
      for (const r of inferAssetRelations(asset)) {
        add({
          subject: references.resolve(r.subject),
          relation: r.relation,
          object: references.resolve(r.object),
        });
      }
    }
    for (const edge of input.edges) {
      const source = this.#assets.get(edge.source_id);
      const target = this.#assets.get(edge.target_id);
      for (const relation of inferEdgeRelations(edge, source, target)) {
        add({ subject: edge.source_id, relation, object: edge.target_id });
      }
    }
    // Tags, findings and frameworks, as the ontology holds them.
    for (const asset of input.assets) {
      for (const [key, value] of Object.entries(asset.tags ?? {})) {
        const node = `tag_${key}_${value}`.replace(/[ /]/g, "_");
        this.#labels.set(node, `tag ${key}=${value}`);
        add({ subject: asset.id, relation: "TAGGED_WITH", object: node });
      }
    }
    input.findings.forEach((finding, index) => {
      const node = `finding_${finding.id}`;
      const target = input.findingAssetIds[index] ?? finding.resource_id;
      this.#labels.set(node, `finding "${finding.title}"`);
      add({ subject: node, relation: "FINDING_AFFECTS", object: target });
      for (const framework of finding.compliance_frameworks ?? []) {
        const control = `compliance_${framework}`;
        this.#labels.set(control, `framework ${framework}`);
        add({ subject: control, relation: "COMPLIANCE_GOVERNS", object: target });
      }
    });
    input.findings.forEach((finding, index) => {
      const assetId = input.findingAssetIds[index];
      if (finding.is_suppressed || assetId === null || assetId === undefined) return;
      pushTo(this.#open, assetId, finding);
    });
    for (const list of this.#open.values()) {
      list.sort((a, b) => riskScore(b) - riskScore(a) || (a.id < b.id ? -1 : 1));
    }
    this.#communities = louvainCommunities(input, { seed: options.seed ?? 7 });
  }

  /** The community number of each asset, and the members of each community. */
  get communities(): Communities {
    return this.#communities;
  }

  #name(id: string): string {
    const asset = this.#assets.get(id);
    return asset ? `${asset.name} (${asset.asset_type})` : this.#labels.get(id) ?? id;
  }

  #maxSeverity(ids: Iterable<string>): Severity | null {
    let worst: Severity | null = null;
    for (const id of ids) {
      for (const finding of this.#open.get(id) ?? []) {
        if (worst === null || severityRank(finding.severity) > severityRank(worst)) {
          worst = finding.severity;
        }
      }
    }
    return worst;
  }

  #entity(asset: Asset): RagChunk {
    const out = this.#out.get(asset.id) ?? [];
    const incoming = this.#in.get(asset.id) ?? [];
    const open = this.#open.get(asset.id) ?? [];
    const className = assetClassName(asset.asset_type);
    const family = assetFamily(asset.asset_type);
    const community = this.#communities.byAsset.get(asset.id) ?? null;
    const tags = Object.entries(asset.tags ?? {}).map(([k, v]) => `${k}=${v}`);
    const lines = [
      `Asset ${asset.name} (${asset.asset_type}, class ${className}, family ${family})`,
      `Id: ${displayId(asset)}`,
      `Provider ${asset.provider}, region ${asset.region}, account ${
        asset.account_id ?? "unknown"
      }`,
      `Internet exposed: ${asset.is_internet_exposed ? "yes" : "no"}`,
    ];
    if (tags.length > 0) lines.push(`Tags: ${tags.join(", ")}`);
    if (out.length > 0) {
      lines.push(
        `Relations out: ${
          out.slice(0, MAX_RELATIONS_SHOWN).map((r) => `${r.relation} → ${this.#name(r.object)}`)
            .join("; ")
        }${out.length > MAX_RELATIONS_SHOWN ? ` (+${out.length - MAX_RELATIONS_SHOWN} more)` : ""}`,
      );
    }
    if (incoming.length > 0) {
      lines.push(
        `Relations in: ${
          incoming.slice(0, MAX_RELATIONS_SHOWN)
            .map((r) => `${r.relation} ← ${this.#name(r.subject)}`).join("; ")
        }${
          incoming.length > MAX_RELATIONS_SHOWN
            ? ` (+${incoming.length - MAX_RELATIONS_SHOWN} more)`
            : ""
        }`,
      );
    }
    if (open.length > 0) {
      lines.push(
        `Open findings: ${
          open.slice(0, MAX_FINDINGS_SHOWN)
            .map((f) => `[${f.severity} ${riskScore(f)}] ${f.title} (${f.id})`).join("; ")
        }${open.length > MAX_FINDINGS_SHOWN ? ` (+${open.length - MAX_FINDINGS_SHOWN} more)` : ""}`,
      );
    }
    if (community !== null) lines.push(`Community: ${community}`);
    return {
      chunk_id: `entity::${asset.id}`,
      chunk_type: "entity",
      content: lines.join("\n"),
      metadata: {
        asset_id: asset.id,
        name: asset.name,
        asset_type: asset.asset_type,
        ontology_class: `cm:${className}`,
        family,
        provider: asset.provider,
        region: asset.region,
        account_id: asset.account_id,
        arn: asset.arn,
        internet_exposed: asset.is_internet_exposed,
        open_findings: open.length,
        max_severity: this.#maxSeverity([asset.id]),
        community,
        relations_out: out.length,
        relations_in: incoming.length,
      },
    };
  }

  #community(index: number): RagChunk {
    const members = this.#communities.members[index] ?? [];
    const memberSet = new Set(members);
    const types: Record<string, number> = {};
    const severities: Record<string, number> = {};
    let exposed = 0;
    let open = 0;
    for (const id of members) {
      const asset = this.#assets.get(id)!;
      countInto(types, asset.asset_type);
      if (asset.is_internet_exposed) exposed++;
      for (const finding of this.#open.get(id) ?? []) {
        open++;
        countInto(severities, finding.severity);
      }
    }
    const inside: Record<string, number> = {};
    for (const id of members) {
      for (const r of this.#out.get(id) ?? []) {
        if (memberSet.has(r.object)) countInto(inside, r.relation);
      }
    }
    const shown = members.slice(0, MAX_MEMBERS_SHOWN).map((id) => this.#name(id));
    const lines = [
      `Community ${index}: ${members.length} assets (${listCounts(types)})`,
      `Members: ${shown.join(", ")}${
        members.length > MAX_MEMBERS_SHOWN ? ` (+${members.length - MAX_MEMBERS_SHOWN} more)` : ""
      }`,
    ];
    if (Object.keys(inside).length > 0) lines.push(`Relations inside: ${listCounts(inside)}`);
    lines.push(
      `Open findings: ${open}${open > 0 ? ` (${listCounts(severities)})` : ""}; ` +
        `internet exposed assets: ${exposed}`,
    );
    return {
      chunk_id: `community::${index}`,
      chunk_type: "community",
      content: lines.join("\n"),
      metadata: {
        community: index,
        size: members.length,
        members: members.slice(0, MAX_MEMBERS_SHOWN),
        asset_types: types,
        relations_inside: inside,
        open_findings: open,
        severity_breakdown: severities,
        max_severity: this.#maxSeverity(members),
        internet_exposed: exposed,
      },
    };
  }

  #groupRelations(group: RelationGroup): Relation[] {
    return this.#relations.filter((r) => GROUP_OF.get(r.relation) === group);
  }

  #relationGroup(group: RelationGroup): RagChunk {
    const relations = this.#groupRelations(group);
    const types: Record<string, number> = {};
    for (const r of relations) countInto(types, r.relation);
    const examples = relations.map((r) =>
      `${this.#name(r.subject)} ${r.relation} ${this.#name(r.object)}`
    ).sort().slice(0, MAX_EXAMPLES_SHOWN);
    const lines = [
      `Relation group ${group}: ${relations.length} relations`,
      `Types: ${relations.length > 0 ? listCounts(types) : "none"}`,
      `Relation types in the group: ${RELATION_GROUPS[group].join(", ")}`,
    ];
    if (examples.length > 0) lines.push(`Examples: ${examples.join("; ")}`);
    return {
      chunk_id: `relation_group::${group}`,
      chunk_type: "relation_group",
      content: lines.join("\n"),
      metadata: { group, relations: relations.length, relation_types: types },
    };
  }

  #chunk(id: string, make: () => RagChunk): RagChunk {
    let chunk = this.#cache.get(id);
    if (chunk === undefined) {
      chunk = make();
      this.#cache.set(id, chunk);
    }
    return chunk;
  }

  /**
   * One page of chunks matching the options.
   *
   * @example
   * ```ts
   * import { RagChunkIndex } from "./rag_chunks.ts";
   * const index = new RagChunkIndex({
   *   assets: [], edges: [], findings: [], findingAssetIds: [], compliance: [],
   * });
   * index.page({ chunkType: "relation_group", limit: 7 }).total; // 7
   * ```
   */
  page(options: RagChunkOptions = {}): RagChunkPage {
    const type = options.chunkType ?? "entity";
    if (!(RAG_CHUNK_TYPES as readonly string[]).includes(type)) {
      throw new OntologyArgumentError(
        `Unknown chunk type "${String(type).slice(0, 40)}": use one of ${
          RAG_CHUNK_TYPES.join(", ")
        }.`,
      );
    }
    const offset = Math.max(0, Math.floor(options.offset ?? 0));
    const limit = Math.max(1, Math.floor(options.limit ?? 10));
    const assetId = options.assetId;
    if (assetId !== undefined && !this.#assets.has(assetId)) {
      throw new OntologyArgumentError(
        `No asset with id "${assetId.slice(0, 200)}" in this dataset.`,
      );
    }
    const minRank = options.minSeverity === undefined ? null : severityRank(options.minSeverity);
    const severe = (ids: Iterable<string>): boolean => {
      if (minRank === null) return true;
      const worst = this.#maxSeverity(ids);
      return worst !== null && severityRank(worst) >= minRank;
    };
    // Candidates as (id, maker) in stable order, filtered by asset and severity.
    let candidates: [string, () => RagChunk][] = [];
    if (type === "entity") {
      const ids = assetId !== undefined ? [assetId] : this.#sortedIds;
      candidates = ids.filter((id) => severe([id])).map((id) => [
        `entity::${id}`,
        () => this.#entity(this.#assets.get(id)!),
      ]);
    } else if (type === "community") {
      const numbers = assetId !== undefined
        ? [this.#communities.byAsset.get(assetId)!]
        : this.#communities.members.map((_, i) => i);
      candidates = numbers.filter((n) => severe(this.#communities.members[n] ?? []))
        .map((n) => [`community::${n}`, () => this.#community(n)]);
    } else {
      const groups = (Object.keys(RELATION_GROUPS) as RelationGroup[]).filter((group) =>
        assetId === undefined ||
        this.#groupRelations(group).some((r) => r.subject === assetId || r.object === assetId)
      );
      candidates = groups.map((g) => [`relation_group::${g}`, () => this.#relationGroup(g)]);
    }
    const words = (options.query ?? "").toLowerCase().split(/\s+/).filter((w) => w !== "");
    let chunks: RagChunk[] | null = null;
    if (words.length > 0) {
      chunks = candidates.map(([id, make]) => this.#chunk(id, make)).filter((chunk) => {
        const text = chunk.content.toLowerCase();
        return words.every((w) => text.includes(w));
      });
    }
    const total = chunks ? chunks.length : candidates.length;
    const items = chunks
      ? chunks.slice(offset, offset + limit)
      : candidates.slice(offset, offset + limit).map(([id, make]) => this.#chunk(id, make));
    return {
      total,
      offset,
      returned: items.length,
      truncated: offset + items.length < total,
      items,
    };
  }
}
