/**
 * Call paths through a given set of function dossiers (REA's
 * `build_call_path` contract): each dossier contributes its procedure and
 * its direct callees; paths are the simple chains of those edges from a
 * start procedure to a goal, bounded by depth and count. A callee with no
 * dossier, and a dossier whose callee page is incomplete, are frontiers
 * the search could not cross: reported, never taken as absence.
 *
 * @module
 */

/** What a path search needs of one dossier. */
export interface PathDossier {
  procedure: { address: string; name: string };
  callees: {
    items: { address: string | null; name: string }[];
    total: number | null;
    truncated: boolean;
  } | null;
}

/** A procedure on a path. */
export interface PathStep {
  address: string;
  name: string;
  /**
   * How the procedure before reaches this one: a call, or a tail jump (a
   * jump to its start); absent on the first step. Dossier paths follow
   * callees only, so their steps are calls.
   */
  via?: "call" | "tail-jump";
}

/** Why the search could not go on from a procedure. */
export type FrontierReason = "no-dossier" | "callees-incomplete";

/** What a dossier path search found. */
export interface DossierPaths {
  /** Simple paths from start to goal, shortest first, then by addresses. */
  paths: PathStep[][];
  /** Procedures with a dossier that the search reached. */
  visited: number;
  /** Where the search could not go on. */
  frontiers: { procedure: string; reason: FrontierReason }[];
  /** Why the search stopped early, when it did. */
  stopped_by: "depth-limit" | "path-limit" | null;
}

const key = (address: string): string => BigInt(address).toString(16);

/**
 * Every simple call path from `start` to `goal` over the dossiers' callee
 * edges, up to `maxDepth` calls and `maxPaths` paths (breadth-first, so the
 * shortest come first).
 */
export function pathsThroughDossiers(
  dossiers: readonly PathDossier[],
  start: string,
  goal: string,
  bounds: { maxDepth: number; maxPaths: number },
): DossierPaths {
  const byAddress = new Map<string, PathDossier>();
  for (const dossier of dossiers) byAddress.set(key(dossier.procedure.address), dossier);
  const goalKey = key(goal);
  const frontiers = new Map<string, FrontierReason>();
  const seen = new Set<string>();
  const paths: PathStep[][] = [];
  const name = (address: string, fallback: string): string =>
    byAddress.get(key(address))?.procedure.name ?? fallback;
  let stopped: DossierPaths["stopped_by"] = null;
  let queue: PathStep[][] = [[{ address: start, name: name(start, "") }]];
  for (let depth = 0; queue.length > 0; depth++) {
    const next: PathStep[][] = [];
    for (const path of queue) {
      const last = path[path.length - 1]!;
      const lastKey = key(last.address);
      if (lastKey === goalKey) {
        paths.push(path);
        if (paths.length >= bounds.maxPaths) return done("path-limit");
        continue;
      }
      const dossier = byAddress.get(lastKey);
      if (!dossier) {
        frontiers.set(last.address, "no-dossier");
        continue;
      }
      seen.add(lastKey);
      const callees = dossier.callees;
      if (!callees || callees.truncated || callees.total === null) {
        frontiers.set(last.address, "callees-incomplete");
      }
      if (depth >= bounds.maxDepth) {
        if ((callees?.items.length ?? 0) > 0) stopped = "depth-limit";
        continue;
      }
      const onPath = new Set(path.map((step) => key(step.address)));
      const targets = (callees?.items ?? [])
        .filter((item): item is { address: string; name: string } => item.address !== null)
        .sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1));
      for (const callee of targets) {
        if (onPath.has(key(callee.address))) continue;
        next.push([...path, {
          address: callee.address,
          name: name(callee.address, callee.name),
          via: "call",
        }]);
      }
    }
    queue = next;
  }
  return done(stopped);

  function done(reason: DossierPaths["stopped_by"]): DossierPaths {
    return {
      paths,
      visited: seen.size,
      frontiers: [...frontiers.entries()].sort().map(([procedure, why]) => ({
        procedure,
        reason: why,
      })),
      stopped_by: reason,
    };
  }
}
