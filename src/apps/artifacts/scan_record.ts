/**
 * What a scan records as it goes: nodes, occurrences, edges, integrity
 * contradictions and limitations, the entry and byte counts, and the
 * snapshot they make at the end.
 *
 * @module
 */

import { compareCodePoints } from "../../core/completion.ts";
import { pushTo } from "../../core/multimap.ts";
import {
  artifactId,
  contradictionId,
  edgeId,
  manifestId,
  occurrenceId,
  rootOccurrenceId,
} from "./ids.ts";
import type {
  ArtifactEdge,
  ArtifactNode,
  ArtifactOccurrence,
  ArtifactSnapshot,
  IntegrityContradiction,
  TraversalLimits,
} from "./model.ts";
import { graphDigest } from "./graph_digest.ts";
import { IntegrityFailure, StopScan } from "./scan_errors.ts";
import { octalMode } from "./model.ts";
import { shadowedNote } from "./member_notes.ts";
import type { ScanOptions, ScanRoot } from "./scan_options.ts";

/** Most scan-wide limitations recorded. */
export const MAX_LIMITATIONS = 200;

/** A child of a container, recorded as an edge once the container's id is known. */
export interface PendingChild {
  artifact_id: string | null;
  relation: "contains" | "extracts";
  occurrence_id: string;
  logical_path: string;
}

/** What a directory's digest is computed from. */
export interface ArchiveMember {
  logicalPath: string;
  artifact_id: string | null;
  entry_kind: string;
  link_target?: string;
}

/** What an archive says about a member besides its content. */
export interface MemberMeta {
  declared_size: number | null;
  compressed_size: number | null;
  mode: number | null;
  source_location: { offset: number; length: number } | null;
  original_name_hex: string | null;
  limitations: string[];
}

/** No archive metadata: a file on disk or a decompressed payload. */
export const NO_META: MemberMeta = {
  declared_size: null,
  compressed_size: null,
  mode: null,
  source_location: null,
  original_name_hex: null,
  limitations: [],
};

/** The root id children of a directory are keyed under until its digest is known. */
export const PROVISIONAL_ROOT = "art_" + "0".repeat(64);

/** The records of one scan, and the snapshot they make. */
export class ScanRecord {
  readonly #root: ScanRoot;
  readonly #options: ScanOptions;
  readonly #limits: TraversalLimits;
  /** The root's artifact id (provisional while a directory is walked). */
  rootArtifactId = "";
  #nodes = new Map<string, ArtifactNode>();
  #occurrences: ArtifactOccurrence[] = [];
  /** Each recorded occurrence by its logical path. */
  readonly occurrenceByPath = new Map<string, ArtifactOccurrence>();
  /** Where each logical path's occurrence sits in the list (a later duplicate replaces it there). */
  readonly #occurrenceIndex = new Map<string, number>();
  #edges = new Map<string, ArtifactEdge>();
  /** Logical path → how many earlier members with that path later ones shadowed. */
  readonly #shadowCount = new Map<string, number>();
  /** The path and entry kind of each shadowed member (its occurrence id once the root is final). */
  readonly #shadowedKeys = new Map<string, { path: string; kind: string }>();
  #contradictions: IntegrityContradiction[] = [];
  #limitations: string[] = [];
  #complete = true;
  #entries = 0;
  /** Bytes read so far. */
  bytesRead = 0;
  /** Bytes read at the last progress report. */
  reported = 0;
  /** Only the root's identity is wanted: entries are counted, not recorded, and get no ids. */
  readonly lean: boolean;
  /** The notes of a directory root (a limit that stopped its walk, a listing cut short). */
  readonly rootLimitations: string[] = [];

  constructor(root: ScanRoot, options: ScanOptions) {
    this.#root = root;
    this.#options = options;
    this.#limits = options.limits;
    this.lean = options.identityOnly === true;
  }

  /** The occurrence id of a path under the root ("" when the scan is lean). */
  occurrenceIdOf(logicalPath: string, entryKind: string): string {
    return this.lean ? "" : occurrenceId(this.rootArtifactId, logicalPath, entryKind);
  }

  /** The root's occurrence id ("" when the scan is lean). */
  rootOccurrenceIdOf(): string {
    return this.lean ? "" : rootOccurrenceId(this.rootArtifactId);
  }

  /** How many occurrences are recorded. */
  get occurrenceCount(): number {
    return this.#occurrences.length;
  }

  /** Counts one entry against max_entries; stops the scan past it. */
  countEntry(): void {
    this.#options.signal?.throwIfAborted();
    // The root occurrence is not an entry; everything else counts.
    if (this.#entries >= this.#limits.max_entries) {
      throw new StopScan(`max_entries (${this.#limits.max_entries}) reached`);
    }
    this.#entries++;
  }

  /**
   * Counts and records an entry whose content is not read: a symbolic link, a
   * special file, or a member that cannot be read (encrypted, overlapping).
   */
  addContentless(
    logicalPath: string,
    entryKind: "symlink" | "special" | "file",
    parentOccurrenceId: string | null,
    meta: MemberMeta,
    linkTarget: string | null,
    limitations: string[],
    encrypted?: boolean,
  ): void {
    this.countEntry();
    this.addOccurrence({
      logicalPath,
      entryKind,
      parentOccurrenceId,
      artifactId: null,
      contentKind: null,
      sha256: null,
      size: null,
      meta,
      linkTarget,
      hashStatus: "unavailable",
      limitations,
      ...(encrypted === undefined ? {} : { encrypted }),
    });
  }

  /** Records an occurrence; a later one at the same path replaces an earlier one. */
  addOccurrence(input: {
    logicalPath: string;
    entryKind: ArtifactOccurrence["entry_kind"];
    parentOccurrenceId: string | null;
    artifactId: string | null;
    contentKind: ArtifactOccurrence["content_kind"];
    sha256: string | null;
    size: number | null;
    meta: MemberMeta;
    linkTarget: string | null;
    hashStatus: ArtifactOccurrence["hash_status"];
    limitations: string[];
    executable?: boolean;
    encrypted?: boolean;
    rootOccurrence?: boolean;
  }): ArtifactOccurrence {
    // Keys in code-unit order (as every item the scan records): JSON.stringify of the item is
    // then its canonical JSON, written natively once the snapshot freezes it.
    const mode = input.meta.mode;
    const location = input.meta.source_location;
    const occurrence: ArtifactOccurrence = {
      artifact_id: input.artifactId,
      compressed_size: input.meta.compressed_size,
      content_kind: input.contentKind,
      declared_size: input.meta.declared_size,
      encrypted: input.encrypted ?? false,
      entry_kind: input.entryKind,
      executable: input.executable ??
        (mode !== null && input.entryKind === "file" && (mode & 0o111) !== 0),
      hash_status: input.hashStatus,
      limitations: input.limitations.slice(0, 20),
      link_target: input.linkTarget,
      logical_path: input.logicalPath,
      mode: mode === null ? null : octalMode(mode),
      occurrence_id: input.rootOccurrence
        ? this.rootOccurrenceIdOf()
        : this.occurrenceIdOf(input.logicalPath, input.entryKind),
      original_name_hex: input.meta.original_name_hex,
      parent_occurrence_id: input.parentOccurrenceId,
      sha256: input.sha256,
      size: input.size,
      source_location: location === null
        ? null
        : { length: location.length, offset: location.offset },
    };
    if (this.lean) return occurrence;
    const existing = this.occurrenceByPath.get(input.logicalPath);
    if (existing) {
      // A second member with the same path (tar appends, duplicate zip names): the later wins, as
      // on extraction; the snapshot drops the earlier one's edge and content (see #dropShadowed).
      const index = this.#occurrenceIndex.get(input.logicalPath)!;
      const earlier = (this.#shadowCount.get(input.logicalPath) ?? 0) + 1;
      this.#shadowCount.set(input.logicalPath, earlier);
      this.#shadowedKeys.set(`${existing.entry_kind}\0${existing.logical_path}`, {
        path: existing.logical_path,
        kind: existing.entry_kind,
      });
      occurrence.limitations.push(
        earlier === 1
          ? "An earlier member with the same path is shadowed by this one (the later wins, as on extraction) and is not listed."
          : `${earlier} earlier members with the same path are shadowed by this one (the later wins, as on extraction) and are not listed.`,
      );
      this.#occurrences[index] = occurrence;
    } else {
      this.#occurrenceIndex.set(input.logicalPath, this.#occurrences.length);
      this.#occurrences.push(occurrence);
    }
    this.occurrenceByPath.set(input.logicalPath, occurrence);
    return occurrence;
  }

  /**
   * Marks every hashed occurrence under `containerPath` as holding bytes a
   * failed integrity check covers: their content was decoded and hashed
   * before the enclosing stream's check (a gzip trailer's CRC-32, say) said
   * some decoded byte is wrong, and which one is not known. Their sha256 stays
   * (it is the digest of the bytes as decoded); their hash_status becomes
   * `mismatched` and the note says why.
   *
   * @returns How many occurrences were marked.
   */
  distrustUnder(containerPath: string, note: string): number {
    const prefix = containerPath === "." ? "" : `${containerPath}/`;
    let marked = 0;
    for (const occurrence of this.#occurrences) {
      if (occurrence.hash_status !== "verified") continue;
      if (!occurrence.logical_path.startsWith(prefix) || occurrence.logical_path === ".") continue;
      occurrence.hash_status = "mismatched";
      if (occurrence.limitations.length < 20) occurrence.limitations.push(note);
      marked++;
    }
    return marked;
  }

  /**
   * Drops what shadowed members left in the graph: the edge of each earlier
   * member whose path a later one took (its occurrence id is the later one's),
   * unless it leads to the listed content, and each content then reached by
   * no edge, with the edges and occurrences of what it contained. The
   * snapshot says how many members were shadowed.
   */
  #dropShadowed(rootId: string): void {
    if (this.#shadowCount.size === 0) return;
    const listed = new Map(this.#occurrences.map((o) => [o.occurrence_id, o]));
    const shadowedIds = new Set(
      [...this.#shadowedKeys.values()].map(({ path, kind }) => this.occurrenceIdOf(path, kind)),
    );
    // Edges into each content and out of each container, counted and listed once (linear).
    const incoming = new Map<string, number>();
    const outgoing = new Map<string, string[]>();
    for (const [id, edge] of this.#edges) {
      incoming.set(edge.child_artifact_id, (incoming.get(edge.child_artifact_id) ?? 0) + 1);
      pushTo(outgoing, edge.parent_artifact_id, id);
    }
    // Contents an edge was dropped into: dropped too once no edge reaches them.
    const orphans: string[] = [];
    const drop = (id: string, edge: ArtifactEdge): void => {
      this.#edges.delete(id);
      incoming.set(edge.child_artifact_id, incoming.get(edge.child_artifact_id)! - 1);
      orphans.push(edge.child_artifact_id);
    };
    for (const [id, edge] of this.#edges) {
      if (!shadowedIds.has(edge.occurrence_id)) continue;
      if (listed.get(edge.occurrence_id)?.artifact_id === edge.child_artifact_id) continue;
      drop(id, edge);
    }
    const inner = new Set<string>();
    while (orphans.length > 0) {
      const node = orphans.pop()!;
      if (node === rootId || incoming.get(node)! > 0) continue;
      this.#nodes.delete(node);
      for (const id of outgoing.get(node) ?? []) {
        const edge = this.#edges.get(id);
        if (edge === undefined) continue;
        inner.add(edge.occurrence_id);
        drop(id, edge);
      }
    }
    if (inner.size > 0) {
      const kept = new Set([...this.#edges.values()].map((e) => e.occurrence_id));
      this.#occurrences = this.#occurrences.filter((o) =>
        !inner.has(o.occurrence_id) || kept.has(o.occurrence_id)
      );
    }
    const shadowed = [...this.#shadowCount.values()].reduce((sum, n) => sum + n, 0);
    const first = [...this.#shadowCount.keys()].sort(compareCodePoints)[0];
    this.note(shadowedNote(shadowed, first ?? ""));
  }

  /** Records a node unless one with its id is recorded (keys in code-unit order). */
  addNode(node: ArtifactNode): void {
    if (!this.lean) this.#putNode(node);
  }

  /** Records a node unless one with its id is recorded, lean or not (the snapshot's root). */
  #putNode(node: ArtifactNode): void {
    if (this.#nodes.has(node.artifact_id)) return;
    this.#nodes.set(node.artifact_id, {
      architecture: node.architecture,
      artifact_id: node.artifact_id,
      content_kind: node.content_kind,
      content_state: node.content_state,
      executable: node.executable,
      format: node.format,
      kind: node.kind,
      limitations: node.limitations,
      media_type: node.media_type,
      sha256: node.sha256,
      size: node.size,
    });
  }

  /** Records an edge from the parent to each child that has an id. */
  addEdges(parentArtifactId: string, children: PendingChild[]): void {
    if (this.lean) return;
    let ordinal = 0;
    for (const child of children) {
      if (child.artifact_id === null) continue;
      const edge: ArtifactEdge = {
        child_artifact_id: child.artifact_id,
        edge_id: "",
        logical_path: child.logical_path,
        occurrence_id: child.occurrence_id,
        ordinal: ordinal++,
        parent_artifact_id: parentArtifactId,
        producer: null,
        relation: child.relation,
      };
      edge.edge_id = edgeId(edge);
      // The same path and content twice under one parent: the later member's ordinal stands.
      this.#edges.delete(edge.edge_id);
      this.#edges.set(edge.edge_id, edge);
    }
  }

  /** Records a checksum failure, or throws it when the policy is to fail. */
  integrity(value: Omit<IntegrityContradiction, "contradiction_id">): void {
    const contradiction: IntegrityContradiction = {
      check: value.check,
      contradiction_id: contradictionId({
        root_artifact_id: this.rootArtifactId,
        logical_path: value.logical_path,
        declared: value.declared,
        observed: value.observed,
      }),
      declared: value.declared,
      logical_path: value.logical_path,
      observed: value.observed,
    };
    const allowance = this.#options.continueOnIntegrity;
    if (!allowance) throw new IntegrityFailure(contradiction);
    if (this.#contradictions.length >= Math.min(100, allowance.maxMismatches)) {
      throw new IntegrityFailure(contradiction);
    }
    this.#contradictions.push(contradiction);
    this.incomplete(`${value.logical_path}: integrity check failed`);
  }

  /** Marks the snapshot incomplete, saying why. */
  incomplete(reason: string): void {
    this.#complete = false;
    this.note(`Incomplete: ${reason}`);
  }

  /** Records a scan-wide limitation, up to MAX_LIMITATIONS. */
  note(text: string): void {
    if (this.#limitations.length < MAX_LIMITATIONS) this.#limitations.push(text);
    else if (this.#limitations.length === MAX_LIMITATIONS) {
      this.#limitations.push("Further limitations were omitted.");
    }
  }

  /** Replaces the provisional root id of a directory scan in every id that embeds it. */
  rekeyRoot(rootArtifactIdFinal: string): void {
    const remap = new Map<string, string>();
    for (const occurrence of this.#occurrences) {
      const next = occurrenceId(
        rootArtifactIdFinal,
        occurrence.logical_path,
        occurrence.entry_kind,
      );
      remap.set(occurrence.occurrence_id, next);
      occurrence.occurrence_id = next;
    }
    remap.set(rootOccurrenceId(PROVISIONAL_ROOT), rootOccurrenceId(rootArtifactIdFinal));
    for (const occurrence of this.#occurrences) {
      if (occurrence.parent_occurrence_id) {
        occurrence.parent_occurrence_id = remap.get(occurrence.parent_occurrence_id) ??
          occurrence.parent_occurrence_id;
      }
    }
    const edges = [...this.#edges.values()];
    this.#edges.clear();
    for (const edge of edges) {
      edge.occurrence_id = remap.get(edge.occurrence_id) ?? edge.occurrence_id;
      edge.edge_id = edgeId(edge);
      this.#edges.set(edge.edge_id, edge);
    }
    for (const contradiction of this.#contradictions) {
      contradiction.contradiction_id = contradictionId({
        root_artifact_id: rootArtifactIdFinal,
        logical_path: contradiction.logical_path,
        declared: contradiction.declared,
        observed: contradiction.observed,
      });
    }
    this.rootArtifactId = rootArtifactIdFinal;
  }

  snapshot(rootSha256: string, rootFormat: ArtifactNode["format"]): ArtifactSnapshot {
    const rootId = artifactId(rootSha256);
    if (this.#root.kind === "directory") {
      this.#occurrences.push({
        artifact_id: rootId,
        compressed_size: null,
        content_kind: "directory",
        declared_size: null,
        encrypted: false,
        entry_kind: "directory",
        executable: false,
        hash_status: "verified",
        limitations: this.rootLimitations.slice(0, 20),
        link_target: null,
        logical_path: ".",
        mode: null,
        occurrence_id: rootOccurrenceId(rootId),
        original_name_hex: null,
        parent_occurrence_id: null,
        sha256: rootSha256,
        size: null,
        source_location: null,
      });
    }
    if (this.#root.kind === "directory") {
      this.#putNode({
        artifact_id: rootId,
        kind: "container",
        format: "directory",
        content_kind: "directory",
        sha256: rootSha256,
        size: 0,
        media_type: "inode/directory",
        architecture: null,
        executable: false,
        content_state: "virtual",
        limitations: [
          "The identity recorded when the directory was opened; this walk did not cover every entry.",
        ],
      });
    }
    // The root's own content could not be hashed to the end: keep a node for its opened identity.
    this.#putNode({
      artifact_id: rootId,
      kind: "unknown",
      format: rootFormat,
      content_kind: "data",
      sha256: rootSha256,
      size: 0,
      media_type: null,
      architecture: null,
      executable: false,
      content_state: "materialized",
      limitations: ["The content could not be read to the end during this scan."],
    });
    this.#dropShadowed(rootId);
    const nodes = [...this.#nodes.values()].sort((a, b) =>
      compareCodePoints(a.artifact_id, b.artifact_id)
    );
    const occurrences = [...this.#occurrences].sort((a, b) =>
      compareCodePoints(a.logical_path, b.logical_path)
    );
    const edges = [...this.#edges.values()].sort((a, b) => compareCodePoints(a.edge_id, b.edge_id));
    const contradictions = [...this.#contradictions].sort((a, b) =>
      compareCodePoints(a.contradiction_id, b.contradiction_id)
    );
    const digest = graphDigest({
      nodes,
      occurrences,
      edges,
      integrity_contradictions: contradictions,
    });
    const graphSha256 = digest.sha256;
    return {
      manifest: {
        schema_version: 1,
        manifest_id: manifestId(rootId, graphSha256),
        root_artifact_id: rootId,
        root_sha256: rootSha256,
        root_format: rootFormat,
        graph_sha256: graphSha256,
        node_count: nodes.length,
        occurrence_count: occurrences.length,
        edge_count: edges.length,
        complete: this.#complete,
      },
      nodes,
      occurrences,
      edges,
      integrity_contradictions: contradictions,
      limits: { ...this.#limits },
      limitations: [...this.#limitations],
      bytes_read: this.bytesRead,
      item_chars: digest.chars,
    };
  }
}
