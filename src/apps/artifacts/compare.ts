/**
 * Artifact comparison: merges each side's retained inventory pages into one
 * graph (refusing pages of different manifests or disagreeing duplicates),
 * then matches occurrences by logical path into added, removed, changed,
 * moved, unchanged and unknown. Missing pages or unreadable members never
 * count as unchanged.
 *
 * @module
 */

import { canonicalJson } from "../../core/canonical_json.ts";
import type {
  ArtifactEdge,
  ArtifactManifest,
  ArtifactNode,
  ArtifactOccurrence,
  IntegrityContradiction,
  InventoryPage,
} from "./model.ts";
import { compareCodePoints } from "../../core/completion.ts";
import { pushTo } from "../../core/multimap.ts";
import { groupByName, pairUniqueNames } from "../analysis/name_pairs.ts";
import { isShadowedNote, unreadMembersReason } from "./member_notes.ts";

/** One side's pages merged. */
export interface MergedInventory {
  manifest: ArtifactManifest;
  nodes: Map<string, ArtifactNode>;
  occurrences: Map<string, ArtifactOccurrence>;
  edges: Map<string, ArtifactEdge>;
  contradictions: IntegrityContradiction[];
  /** The inventory's scan-wide notes. */
  limitations: string[];
  /** Every node, occurrence and edge the manifest counts is present. */
  complete: boolean;
  missing: { nodes: number; occurrences: number; edges: number };
  evidenceIds: string[];
}

/** Why pages cannot be merged. */
export class MergeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MergeError";
  }
}

/** Merges the pages of one inventory; throws MergeError when they disagree. */
export function mergePages(
  pages: ReadonlyArray<{ evidenceId: string; page: InventoryPage }>,
): MergedInventory {
  const first = pages[0];
  if (!first) throw new MergeError("No inventory page was given.");
  const manifestJson = canonicalJson(first.page.manifest);
  const contradictionsJson = canonicalJson(first.page.integrity_contradictions);
  const nodes = new Map<string, ArtifactNode>();
  const occurrences = new Map<string, ArtifactOccurrence>();
  const edges = new Map<string, ArtifactEdge>();
  const put = <T>(map: Map<string, T>, key: string, value: T, what: string): void => {
    const existing = map.get(key);
    if (existing === undefined) map.set(key, value);
    else if (canonicalJson(existing) !== canonicalJson(value)) {
      throw new MergeError(`Two pages disagree about ${what} ${key}.`);
    }
  };
  for (const { evidenceId, page } of pages) {
    if (canonicalJson(page.manifest) !== manifestJson) {
      throw new MergeError(
        `Evidence ${evidenceId} belongs to manifest ${page.manifest.manifest_id}, not ${first.page.manifest.manifest_id}: pages of one side must come from one inventory.`,
      );
    }
    if (canonicalJson(page.integrity_contradictions) !== contradictionsJson) {
      throw new MergeError(`Evidence ${evidenceId} lists different integrity contradictions.`);
    }
    for (const node of page.nodes.items) put(nodes, node.artifact_id, node, "node");
    for (const occ of page.occurrences.items) {
      put(occurrences, occ.occurrence_id, occ, "occurrence");
    }
    for (const edge of page.edges.items) put(edges, edge.edge_id, edge, "edge");
  }
  const manifest = first.page.manifest;
  const missing = {
    nodes: manifest.node_count - nodes.size,
    occurrences: manifest.occurrence_count - occurrences.size,
    edges: manifest.edge_count - edges.size,
  };
  return {
    manifest,
    nodes,
    occurrences,
    edges,
    contradictions: first.page.integrity_contradictions,
    limitations: first.page.limitations,
    complete: missing.nodes === 0 && missing.occurrences === 0 && missing.edges === 0,
    missing,
    evidenceIds: pages.map((p) => p.evidenceId),
  };
}

/** How one path differs. */
export type ChangeStatus = "added" | "removed" | "changed" | "moved" | "unchanged" | "unknown";

/** One path's comparison. */
export interface ArtifactChange {
  logical_path: string;
  status: ChangeStatus;
  /** For `moved`: the left path (same content at a new path, or a renamed path whose changes `dimensions` lists). */
  moved_from: string | null;
  /** The dimensions that differ (or could not be compared, for `unknown`). */
  dimensions: string[];
  left: ChangeSide | null;
  right: ChangeSide | null;
}

/** What one side held at a path. */
export interface ChangeSide {
  occurrence_id: string;
  /** The path on this side (differs from the change's path when an enclosing container was renamed). */
  logical_path: string;
  entry_kind: string;
  content_kind: string | null;
  format: string | null;
  sha256: string | null;
  size: number | null;
  executable: boolean;
  /** Permission bits in octal (`0644`). */
  mode: string | null;
  link_target: string | null;
  hash_status: string;
}

/** The whole comparison before paging. */
export interface ArtifactComparison {
  status: "truncated" | "contradiction" | "unknown" | "unchanged" | "changed";
  changes: ArtifactChange[];
  counts: Record<ChangeStatus, number>;
  limitations: string[];
}

/** Formats whose single member is a decompressed stream named after the outer file. */
const COMPRESSION_FORMATS: ReadonlySet<string> = new Set(["gzip", "xz", "zstd", "bzip2"]);

/** Dotted version numbers (`1.0.8`, `2.3.4.1`): a rename that only changes them keeps identity. */
const VERSION = /\d+(?:\.\d+)+/g;

/** Two occurrences taken to be one path across versions; `renamed` when their own names differ. */
interface OccurrencePair {
  left: ArtifactOccurrence;
  right: ArtifactOccurrence;
  renamed: boolean;
}

/**
 * Pairs the occurrences of two inventories by their path inside their
 * container, container by container from the roots: a member keeps its
 * identity when an enclosing container was renamed (an npm `pkg-1.0.8.tgz`
 * whose stream is named `pkg-1.0.8.tar` after it). Within a paired
 * container, members pair by relative path; then the sole decompressed
 * stream of each side; then members whose paths differ only in dotted
 * version numbers, one to one. Occurrences whose containers are not on the
 * supplied pages pair by logical path.
 */
function pairOccurrences(
  left: MergedInventory,
  right: MergedInventory,
): {
  pairs: OccurrencePair[];
  /** The two roots, paired before any member (not among `pairs`). */
  roots: { left: ArtifactOccurrence; right: ArtifactOccurrence } | null;
  leftOnly: ArtifactOccurrence[];
  rightOnly: ArtifactOccurrence[];
} {
  const extracted = (inventory: MergedInventory) => {
    const ids = new Set<string>();
    for (const edge of inventory.edges.values()) {
      if (edge.relation === "extracts") ids.add(edge.occurrence_id);
    }
    return (occ: ArtifactOccurrence, parent: ArtifactOccurrence): boolean =>
      ids.has(occ.occurrence_id) ||
      COMPRESSION_FORMATS.has(
        parent.artifact_id ? inventory.nodes.get(parent.artifact_id)?.format ?? "" : "",
      );
  };
  const childrenOf = (inventory: MergedInventory) => {
    const map = new Map<string, ArtifactOccurrence[]>();
    for (const occ of inventory.occurrences.values()) {
      if (occ.parent_occurrence_id === null) continue;
      const list = map.get(occ.parent_occurrence_id) ?? [];
      list.push(occ);
      map.set(occ.parent_occurrence_id, list);
    }
    return map;
  };
  const relative = (occ: ArtifactOccurrence, parent: ArtifactOccurrence): string =>
    parent.logical_path === "."
      ? occ.logical_path
      : occ.logical_path.startsWith(`${parent.logical_path}/`)
      ? occ.logical_path.slice(parent.logical_path.length + 1)
      : occ.logical_path;
  const leftChildren = childrenOf(left);
  const rightChildren = childrenOf(right);
  const leftExtracted = extracted(left);
  const rightExtracted = extracted(right);
  const pairs: OccurrencePair[] = [];
  const pairedLeft = new Set<string>();
  const pairedRight = new Set<string>();
  const pair = (l: ArtifactOccurrence, r: ArtifactOccurrence, renamed: boolean): void => {
    pairs.push({ left: l, right: r, renamed });
    pairedLeft.add(l.occurrence_id);
    pairedRight.add(r.occurrence_id);
  };
  const root = (inventory: MergedInventory) =>
    [...inventory.occurrences.values()].find((o) => o.logical_path === ".");
  const leftRoot = root(left);
  const rightRoot = root(right);
  const queue: Array<[ArtifactOccurrence, ArtifactOccurrence]> = [];
  if (leftRoot && rightRoot) {
    pairedLeft.add(leftRoot.occurrence_id);
    pairedRight.add(rightRoot.occurrence_id);
    queue.push([leftRoot, rightRoot]);
  }
  while (queue.length > 0) {
    const [lp, rp] = queue.pop()!;
    const before = pairs.length;
    const ls = leftChildren.get(lp.occurrence_id) ?? [];
    const rs = rightChildren.get(rp.occurrence_id) ?? [];
    const rightByPath = new Map(rs.map((r) => [relative(r, rp), r]));
    for (const l of ls) {
      const r = rightByPath.get(relative(l, lp));
      if (r && !pairedRight.has(r.occurrence_id)) pair(l, r, false);
    }
    const openLeft = () => ls.filter((l) => !pairedLeft.has(l.occurrence_id));
    const openRight = () => rs.filter((r) => !pairedRight.has(r.occurrence_id));
    const streamsLeft = openLeft().filter((l) => leftExtracted(l, lp));
    const streamsRight = openRight().filter((r) => rightExtracted(r, rp));
    if (streamsLeft.length === 1 && streamsRight.length === 1) {
      pair(streamsLeft[0]!, streamsRight[0]!, true);
    }
    const shapes = (list: ArtifactOccurrence[], parent: ArtifactOccurrence) => {
      const map = new Map<string, ArtifactOccurrence[]>();
      for (const occ of list) {
        const path = relative(occ, parent);
        const shape = path.replace(VERSION, "\0");
        if (shape === path) continue;
        const key = `${occ.entry_kind}:${shape}`;
        pushTo(map, key, occ);
      }
      return map;
    };
    const rightShapes = shapes(openRight(), rp);
    for (const [key, list] of shapes(openLeft(), lp)) {
      const other = rightShapes.get(key);
      if (list.length === 1 && other?.length === 1) pair(list[0]!, other[0]!, true);
    }
    for (const p of pairs.slice(before)) queue.push([p.left, p.right]);
  }
  // Occurrences whose containers were not reached pair by logical path.
  const rightByLogical = new Map<string, ArtifactOccurrence>();
  for (const r of right.occurrences.values()) {
    if (!pairedRight.has(r.occurrence_id)) rightByLogical.set(r.logical_path, r);
  }
  for (const l of left.occurrences.values()) {
    if (pairedLeft.has(l.occurrence_id) || l.logical_path === ".") continue;
    const r = rightByLogical.get(l.logical_path);
    if (r && !pairedRight.has(r.occurrence_id)) pair(l, r, false);
  }
  const open = (inventory: MergedInventory, paired: Set<string>) =>
    [...inventory.occurrences.values()].filter((o) =>
      o.logical_path !== "." && !paired.has(o.occurrence_id)
    );
  return {
    pairs,
    roots: leftRoot && rightRoot ? { left: leftRoot, right: rightRoot } : null,
    leftOnly: open(left, pairedLeft),
    rightOnly: open(right, pairedRight),
  };
}

/**
 * Why the members under `container` may not all be listed, or `null`. A
 * directory inside an archive is only a prefix of member names: members
 * under it may come anywhere in the archive, so the notes of every enclosing
 * directory up to the archive (included) count. A directory on disk is
 * listed whole before its entries are visited, so only its own notes count.
 */
function unreadBelow(container: ArtifactOccurrence, inventory: MergedInventory): {
  occurrence: ArtifactOccurrence;
  reason: string;
} | null {
  const chain = [container];
  let current = container;
  while (current.entry_kind === "directory" && current.parent_occurrence_id !== null) {
    const parent = inventory.occurrences.get(current.parent_occurrence_id);
    if (parent === undefined || chain.includes(parent)) break;
    chain.push(parent);
    current = parent;
  }
  const inArchive = current.entry_kind === "file";
  for (const occurrence of inArchive ? chain : [container]) {
    const reason = unreadMembersReason(occurrence);
    if (reason !== null) return { occurrence, reason };
  }
  return null;
}

/**
 * The one-sided occurrences whose nearest paired container (the roots
 * included) was not read to its end on the other side (undecodable,
 * damaged, a traversal limit that stopped the walk inside it, max_depth):
 * the other side may hold them, so they are neither added nor removed. With
 * one note per such container, saying why.
 */
function unreadOnOtherSide(
  left: MergedInventory,
  right: MergedInventory,
  paired: ReturnType<typeof pairOccurrences>,
): {
  left: Map<string, ArtifactOccurrence>;
  right: Map<string, ArtifactOccurrence>;
  notes: string[];
} {
  const leftToRight = new Map<string, ArtifactOccurrence>();
  const rightToLeft = new Map<string, ArtifactOccurrence>();
  const roots = paired.roots ? [paired.roots] : [];
  for (const { left: l, right: r } of [...paired.pairs, ...roots]) {
    leftToRight.set(l.occurrence_id, r);
    rightToLeft.set(r.occurrence_id, l);
  }
  const notes: string[] = [];
  const find = (
    only: ArtifactOccurrence[],
    own: MergedInventory,
    counterpart: Map<string, ArtifactOccurrence>,
    otherInventory: MergedInventory,
    names: { own: string; other: string },
  ): Map<string, ArtifactOccurrence> => {
    const found = new Map<string, ArtifactOccurrence>();
    const byContainer = new Map<string, { path: string; reason: string; count: number }>();
    for (const occ of only) {
      let parentId = occ.parent_occurrence_id;
      const seen = new Set<string>();
      while (parentId !== null && !seen.has(parentId)) {
        seen.add(parentId);
        const other = counterpart.get(parentId);
        const parent = own.occurrences.get(parentId);
        if (other !== undefined) {
          const unread = unreadBelow(other, otherInventory);
          if (unread !== null) {
            found.set(occ.occurrence_id, occ);
            const { occurrence, reason } = unread;
            const path = occurrence.logical_path === "." ? "root" : occurrence.logical_path;
            const entry = byContainer.get(occurrence.occurrence_id) ?? { path, reason, count: 0 };
            entry.count++;
            byContainer.set(occurrence.occurrence_id, entry);
          }
          break;
        }
        parentId = parent?.parent_occurrence_id ?? null;
      }
    }
    for (const { path, reason, count } of byContainer.values()) {
      notes.push(
        `${count} path(s) on the ${names.own} are not on the ${names.other}, whose ${path} was not read to its end (${reason}); they are unknown, not ${
          names.own === "left" ? "removed" : "added"
        }.`,
      );
    }
    return found;
  };
  return {
    left: find(paired.leftOnly, left, leftToRight, right, { own: "left", other: "right" }),
    right: find(paired.rightOnly, right, rightToLeft, left, { own: "right", other: "left" }),
    notes,
  };
}

/** Whether `occurrence` is a directory whose members were not all read (its digest is partial or absent). */
function partlyListed(occurrence: ArtifactOccurrence, inventory: MergedInventory): boolean {
  return occurrence.entry_kind === "directory" &&
    (occurrence.sha256 === null || unreadBelow(occurrence, inventory) !== null);
}

/** Compares two merged inventories path by path (paths inside their containers). */
export function compareInventories(
  left: MergedInventory,
  right: MergedInventory,
): ArtifactComparison {
  const side = (inventory: MergedInventory, occ: ArtifactOccurrence): ChangeSide => ({
    occurrence_id: occ.occurrence_id,
    logical_path: occ.logical_path,
    entry_kind: occ.entry_kind,
    content_kind: occ.content_kind,
    format: occ.artifact_id ? inventory.nodes.get(occ.artifact_id)?.format ?? null : null,
    sha256: occ.sha256,
    size: occ.size,
    executable: occ.executable,
    mode: occ.mode,
    link_target: occ.link_target,
    hash_status: occ.hash_status,
  });
  const paired = pairOccurrences(left, right);
  const { pairs } = paired;
  const changes: ArtifactChange[] = [];
  const unread = unreadOnOtherSide(left, right, paired);
  const leftOnly = paired.leftOnly.filter((o) => !unread.left.has(o.occurrence_id));
  const rightOnly = paired.rightOnly.filter((o) => !unread.right.has(o.occurrence_id));
  for (
    const [name, inventory, only] of [["left", left, unread.left], [
      "right",
      right,
      unread.right,
    ]] as const
  ) {
    for (const occ of only.values()) {
      changes.push({
        logical_path: occ.logical_path,
        status: "unknown",
        moved_from: null,
        dimensions: ["presence"],
        left: name === "left" ? side(inventory, occ) : null,
        right: name === "right" ? side(inventory, occ) : null,
      });
    }
  }
  const removedByContent = new Map<string, ArtifactOccurrence[]>();
  for (const occ of leftOnly) {
    if (occ.sha256 && occ.entry_kind === "file") {
      const list = removedByContent.get(occ.sha256) ?? [];
      list.push(occ);
      removedByContent.set(occ.sha256, list);
    }
  }
  const movedSources = new Set<string>();
  for (const r of rightOnly) {
    const from = r.sha256 && r.entry_kind === "file"
      ? removedByContent.get(r.sha256)?.shift()
      : undefined;
    if (from) movedSources.add(from.occurrence_id);
    changes.push({
      logical_path: r.logical_path,
      status: from ? "moved" : "added",
      moved_from: from?.logical_path ?? null,
      dimensions: from ? ["path"] : [],
      left: from ? side(left, from) : null,
      right: side(right, r),
    });
  }
  for (const { left: l, right: r, renamed } of pairs) {
    const a = side(left, l);
    const b = side(right, r);
    // A directory whose members were not all read has a digest of part of its listing (or none).
    const partial = partlyListed(l, left) || partlyListed(r, right);
    const unreadable = partial ||
      [a, b].some((s) =>
        s.hash_status !== "verified" && s.entry_kind !== "symlink" && s.entry_kind !== "special"
      );
    const differing: string[] = [];
    if (a.entry_kind !== b.entry_kind) differing.push("kind");
    if (a.sha256 !== b.sha256 && a.sha256 !== null && b.sha256 !== null && !partial) {
      differing.push("content");
    }
    if (a.format !== b.format && a.format !== null && b.format !== null) differing.push("format");
    if (a.size !== b.size && a.size !== null && b.size !== null) differing.push("size");
    if (a.executable !== b.executable) differing.push("executable");
    if (a.mode !== b.mode) differing.push("mode");
    if (a.link_target !== b.link_target) differing.push("link_target");
    let status: ChangeStatus;
    let dimensions = differing;
    if (renamed && l.logical_path !== r.logical_path) {
      status = "moved";
      dimensions = ["path", ...differing];
    } else if (differing.length > 0) status = "changed";
    else if (unreadable) {
      status = "unknown";
      dimensions = ["content"];
    } else status = "unchanged";
    changes.push({
      logical_path: r.logical_path,
      status,
      moved_from: status === "moved" ? l.logical_path : null,
      dimensions,
      left: a,
      right: b,
    });
  }
  for (const l of leftOnly) {
    if (movedSources.has(l.occurrence_id)) continue;
    changes.push({
      logical_path: l.logical_path,
      status: "removed",
      moved_from: null,
      dimensions: [],
      left: side(left, l),
      right: null,
    });
  }
  changes.sort((x, y) => compareCodePoints(x.logical_path, y.logical_path));
  const counts: Record<ChangeStatus, number> = {
    added: 0,
    removed: 0,
    changed: 0,
    moved: 0,
    unchanged: 0,
    unknown: 0,
  };
  for (const change of changes) counts[change.status]++;
  const limitations: string[] = [...unread.notes];
  for (const [name, inventory] of [["left", left], ["right", right]] as const) {
    if (!inventory.complete) {
      limitations.push(
        `The ${name} page set is incomplete: ${inventory.missing.nodes} node(s), ${inventory.missing.occurrences} occurrence(s) and ${inventory.missing.edges} edge(s) of manifest ${inventory.manifest.manifest_id} were not supplied; paths on missing pages are reported as added or removed although they may exist.`,
      );
    }
    const shadowed = inventory.limitations.find(isShadowedNote);
    if (shadowed !== undefined) limitations.push(`In the ${name} inventory, ${shadowed}`);
    if (!inventory.manifest.complete) {
      limitations.push(
        `The ${name} inventory did not cover its whole artifact (a limit or damaged member); see its Evidence limitations.`,
      );
    }
  }
  const status: ArtifactComparison["status"] = !left.complete || !right.complete
    ? "truncated"
    : left.contradictions.length > 0 || right.contradictions.length > 0
    ? "contradiction"
    : !left.manifest.complete || !right.manifest.complete || counts.unknown > 0
    ? "unknown"
    : changes.every((c) => c.status === "unchanged")
    ? "unchanged"
    : "changed";
  return { status, changes, counts, limitations };
}

/** Procedure-level differences between two versions of one binary. */
export interface SymbolSummary {
  left_procedures: number;
  right_procedures: number;
  added: string[];
  removed: string[];
  resized: Array<{ name: string; left_size: number; right_size: number }>;
  added_count: number;
  removed_count: number;
  resized_count: number;
  /** Names seen at more than one address on a side are compared by count only. */
  ambiguous_names: number;
  truncated: boolean;
}

/** The most names listed per category. */
export const SYMBOL_LIST_CAP = 100;

/** Compares procedure lists by name. */
export function compareProcedures(
  left: ReadonlyArray<{ name: string; size: number }>,
  right: ReadonlyArray<{ name: string; size: number }>,
): SymbolSummary {
  const l = groupByName(left);
  const r = groupByName(right);
  const added = [...r.keys()].filter((name) => !l.has(name)).sort(compareCodePoints);
  const removed = [...l.keys()].filter((name) => !r.has(name)).sort(compareCodePoints);
  const { pairs, ambiguous } = pairUniqueNames(l, r);
  const resized: SymbolSummary["resized"] = [];
  for (const { name, left: { size: leftSize }, right: { size: rightSize } } of pairs) {
    if (leftSize !== rightSize) resized.push({ name, left_size: leftSize, right_size: rightSize });
  }
  resized.sort((a, b) => compareCodePoints(a.name, b.name));
  return {
    left_procedures: left.length,
    right_procedures: right.length,
    added: added.slice(0, SYMBOL_LIST_CAP),
    removed: removed.slice(0, SYMBOL_LIST_CAP),
    resized: resized.slice(0, SYMBOL_LIST_CAP),
    added_count: added.length,
    removed_count: removed.length,
    resized_count: resized.length,
    ambiguous_names: ambiguous,
    truncated: added.length > SYMBOL_LIST_CAP || removed.length > SYMBOL_LIST_CAP ||
      resized.length > SYMBOL_LIST_CAP,
  };
}
