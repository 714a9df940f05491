/**
 * One page of an inventory snapshot, bounded in items and in characters of
 * JSON: each collection (occurrences, then nodes, then edges) takes items
 * from its offset up to its limit while the page stays within the budget.
 * A page cut short by the budget reports the items it holds as its `limit`,
 * so `next_offset` continues exactly where it stopped.
 *
 * @module
 */

import type { ArtifactSnapshot, InventoryPage } from "./model.ts";

/**
 * Characters of JSON an inventory page holds at most (at least one item of
 * each collection that has items left), below the character budget the
 * output policies project results to, so no page is ever shrunk after it is
 * recorded.
 */
export const INVENTORY_PAGE_CHARS = 90_000;

/** Where a page starts in each collection and how many items it may hold. */
export interface InventoryCursors {
  node_offset: number;
  node_limit: number;
  occurrence_offset: number;
  occurrence_limit: number;
  edge_offset: number;
  edge_limit: number;
}

/** One collection's page. */
interface Page<T> {
  items: T[];
  offset: number;
  limit: number;
  total: number;
  next_offset: number | null;
}

/** Characters of an item's JSON and the comma before it: from the scan's sizes when it has them. */
type Measure = (index: number) => number;

/** The measure of a collection: the sizes the scan recorded, or each item serialised. */
function measureOf(items: readonly unknown[], sizes: Uint32Array | undefined): Measure {
  if (sizes && sizes.length === items.length) return (index) => sizes[index]! + 1;
  return (index) => JSON.stringify(items[index]).length + 1;
}

/** Characters of the first item a collection would put on a page (0 when it has none left). */
function firstItemChars(items: readonly unknown[], offset: number, measure: Measure): number {
  return offset < items.length ? measure(offset) : 0;
}

/**
 * Items of `items` from `offset`, at most `limit` and, past the first, at
 * most `budget.chars` less `reserve` (what the next collections' first items
 * need) characters of JSON, commas included; spends the budget.
 */
function boundedPage<T>(
  items: readonly T[],
  offset: number,
  limit: number,
  budget: { chars: number; reserve: number },
  measure: Measure,
): Page<T> {
  const total = items.length;
  const end = Math.min(total, offset + limit);
  let taken = 0;
  for (let index = offset; index < end; index++) {
    const chars = measure(index);
    if (taken > 0 && chars > budget.chars - budget.reserve) break;
    budget.chars -= chars;
    taken++;
  }
  // Cut short by the budget: the page says how many it holds, and continues after them.
  const effective = offset + taken < end ? taken : limit;
  return {
    items: items.slice(offset, offset + taken),
    offset,
    limit: effective,
    total,
    next_offset: offset + effective < total ? offset + effective : null,
  };
}

/**
 * The page of `snapshot` at `cursors`, within `maxChars` characters of JSON
 * (default {@linkcode INVENTORY_PAGE_CHARS}) unless a single item per
 * collection is larger.
 */
export function inventoryPage(
  snapshot: ArtifactSnapshot,
  cursors: InventoryCursors,
  options: { maxChars?: number } = {},
): InventoryPage {
  const empty = { items: [], offset: 0, limit: 1, total: 0, next_offset: null };
  const frame: InventoryPage = {
    manifest: snapshot.manifest,
    nodes: empty,
    occurrences: empty,
    edges: empty,
    limits: snapshot.limits,
    integrity_contradictions: snapshot.integrity_contradictions,
    limitations: snapshot.limitations,
  };
  // The frame's own size, with room for the three pages' offsets and totals; each collection
  // leaves room for the first item of the ones after it, which every page carries.
  const sizes = snapshot.item_chars;
  const measure = {
    nodes: measureOf(snapshot.nodes, sizes?.nodes),
    occurrences: measureOf(snapshot.occurrences, sizes?.occurrences),
    edges: measureOf(snapshot.edges, sizes?.edges),
  };
  const firstNode = firstItemChars(snapshot.nodes, cursors.node_offset, measure.nodes);
  const firstEdge = firstItemChars(snapshot.edges, cursors.edge_offset, measure.edges);
  const budget = {
    chars: (options.maxChars ?? INVENTORY_PAGE_CHARS) - JSON.stringify(frame).length - 200,
    reserve: firstNode + firstEdge,
  };
  const occurrences = boundedPage(
    snapshot.occurrences,
    cursors.occurrence_offset,
    cursors.occurrence_limit,
    budget,
    measure.occurrences,
  );
  budget.reserve = firstEdge;
  const nodes = boundedPage(
    snapshot.nodes,
    cursors.node_offset,
    cursors.node_limit,
    budget,
    measure.nodes,
  );
  budget.reserve = 0;
  const edges = boundedPage(
    snapshot.edges,
    cursors.edge_offset,
    cursors.edge_limit,
    budget,
    measure.edges,
  );
  return { ...frame, nodes, occurrences, edges };
}
