/**
 * Straight-loop baselines for the graph benches: the same questions the
 * graph queries answer, asked by scanning the raw edge list each time.
 */

import { type DatasetRecords, riskScore } from "../../src/cloud/model/records.ts";

/** How many edges touch `id`, by a scan of every edge. */
export function scanNeighbors(records: DatasetRecords, id: string): number {
  let found = 0;
  for (const e of records.edges) if (e.source_id === id || e.target_id === id) found++;
  return found;
}

/** The hop count of a shortest directed path, by breadth-first scans of every edge; -1 when none. */
export function scanPath(
  records: DatasetRecords,
  from: string,
  to: string,
  maxDepth: number,
): number {
  const seen = new Set([from]);
  let frontier = new Set([from]);
  for (let depth = 1; depth <= maxDepth && frontier.size > 0; depth++) {
    const next = new Set<string>();
    for (const e of records.edges) {
      if (!frontier.has(e.source_id) || seen.has(e.target_id)) continue;
      if (e.target_id === to) return depth;
      seen.add(e.target_id);
      next.add(e.target_id);
    }
    frontier = next;
  }
  return -1;
}

/** The `top` resources with the worst open finding risk, by a scan of every finding. */
export function scanRisks(records: DatasetRecords, top: number): string[] {
  const worst = new Map<string, number>();
  for (const f of records.findings) {
    if (f.is_suppressed) continue;
    worst.set(f.resource_id, Math.max(worst.get(f.resource_id) ?? 0, riskScore(f)));
  }
  return [...worst].sort((a, b) => b[1] - a[1]).slice(0, top).map(([id]) => id);
}
