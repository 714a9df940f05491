/**
 * In-place changes to a dataset's findings made through the workspace's
 * mutation API (a change bumps the version and sends the update events):
 * normalisation (`normalise_findings`) and adding our reachability findings
 * (`reachability_findings` with `add_to_dataset`).
 *
 * @module
 */

import type { Finding } from "../model/records.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { applyMerges, normaliseFindings } from "./finding_normalise.ts";
import { reachabilityFindings } from "./reachability_findings.ts";

/** What {@linkcode normaliseDatasetFindings} did. */
export interface DatasetNormaliseOutcome {
  /** The dataset. */
  dataset: string;
  /** Its version afterwards (bumped only when something changed). */
  version: number;
  /** Whether the findings changed. */
  changed: boolean;
  /** Findings before. */
  before: number;
  /** Findings after. */
  after: number;
  /** Ids merged into an earlier duplicate (and dropped). */
  merged_ids: string[];
  /** Every framework tag afterwards, sorted. */
  frameworks: string[];
}

/**
 * De-duplicates a dataset's findings and re-maps their compliance tags, in
 * place. Suppression reasons of merged ids are dropped with them.
 */
export function normaliseDatasetFindings(
  workspace: Workspace,
  dataset?: string,
): DatasetNormaliseOutcome {
  const name = workspace.dataset(dataset).name;
  const outcome = workspace.mutate(name, (records) => {
    const result = normaliseFindings(records.findings);
    const changed = JSON.stringify(result.findings) !== JSON.stringify(records.findings);
    if (changed) {
      records.findings = result.findings;
      applyMerges(records, result.merged_into);
    }
    return { changed, result: { ...result, changed } };
  });
  return {
    dataset: name,
    version: workspace.dataset(name).version,
    changed: outcome.changed,
    before: outcome.before,
    after: outcome.after,
    merged_ids: outcome.merged_ids,
    frameworks: outcome.frameworks,
  };
}

/** What {@linkcode datasetReachabilityFindings} found and did. */
export interface DatasetReachabilityOutcome {
  /** The dataset. */
  dataset: string;
  /** Its version afterwards. */
  version: number;
  /** The findings derived, nearest store first. */
  findings: Finding[];
  /** How many were added to the dataset (0 unless asked; ids already present are not added again). */
  added: number;
}

/**
 * Derives the findings for sensitive stores the internet reaches; with
 * `add`, appends those whose id the dataset lacks (one mutation).
 */
export async function datasetReachabilityFindings(
  workspace: Workspace,
  options: { dataset?: string; limit?: number; add?: boolean } = {},
): Promise<DatasetReachabilityOutcome> {
  const source = workspace.dataset(options.dataset);
  const name = source.name;
  const findings = await reachabilityFindings(source.records, {
    ...(options.limit === undefined ? {} : { limit: options.limit }),
  });
  let added = 0;
  if (options.add) {
    added = workspace.mutate(name, (records) => {
      const ids = new Set(records.findings.map((f) => f.id));
      const fresh = findings.filter((f) => !ids.has(f.id)).map((f) => structuredClone(f));
      // One by one: spreading hundreds of thousands of arguments overflows the call stack.
      for (const finding of fresh) records.findings.push(finding);
      return { changed: fresh.length > 0, result: fresh.length };
    });
  }
  return { dataset: name, version: workspace.dataset(name).version, findings, added };
}
