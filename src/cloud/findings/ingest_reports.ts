/**
 * Ingesting scanner reports (§4.2, `ingest_reports`): every report is read
 * first (through the workspace's fence, detection skipped: the tool names the
 * kind), then the records merge into an existing dataset as one mutation (the
 * version bumps, change events go out) or become a new dataset. Any report
 * that fails to read leaves the workspace as it was.
 *
 * @module
 */

import { DatasetExistsError, InvalidArgumentError } from "../model/errors.ts";
import { parseEnum } from "../model/parse_enum.ts";
import { type DatasetRecords, emptyRecords, type Json } from "../model/records.ts";
import { applyMerges, normaliseFindings } from "./finding_normalise.ts";
import type { Workspace } from "../workspace/workspace.ts";
import { checkDatasetName, uniqueName } from "../workspace/naming.ts";

/** The report kinds `ingest_reports` reads, as its `reports` keys. */
export const INGEST_TOOLS = [
  "prowler",
  "prowler-asff",
  "prowler-ocsf",
  "prowler-csv",
  "scoutsuite",
  "checkov",
  "trivy",
] as const;

/** Most report paths in one call. */
export const MAX_INGEST_PATHS = 100;

/** The name a new dataset gets when none is given. */
export const DEFAULT_INGEST_NAME = "ingested";

/** Options of {@linkcode ingestReports}. */
export interface IngestOptions {
  /** The dataset to merge into (empty: the active one), or the new dataset's name. */
  dataset?: string;
  /** Make a new dataset instead of merging into an existing one. @default false */
  newDataset?: boolean;
  /** De-duplicate and re-map compliance tags after merging. @default true */
  normalise?: boolean;
  /** Make a new dataset active. @default true */
  activate?: boolean;
  /** Replace a dataset of the new dataset's name. @default false */
  replace?: boolean;
}

/** One report read. */
export interface IngestedReport {
  /** The `reports` key it was given under. */
  tool: string;
  /** The kind that read it. */
  kind: string;
  /** The file's base name. */
  file: string;
  /** Findings it held. */
  findings: number;
}

/** What {@linkcode ingestReports} did. */
export interface IngestOutcome {
  /** The dataset written. */
  dataset: string;
  /** Its version afterwards. */
  version: number;
  /** Whether a new dataset was made. */
  created: boolean;
  /** Whether a dataset of that name was replaced. */
  replaced: boolean;
  /** The reports, in the order read. */
  reports: IngestedReport[];
  /** Findings added to the dataset. */
  added: number;
  /** Findings left out because the dataset already held their id. */
  duplicates: number;
  /** Finding counts around normalisation, or null when it was not asked for. */
  normalised: { before: number; after: number } | null;
  /** Findings of the dataset afterwards. */
  total_findings: number;
  /** Findings of the dataset that map to no asset. */
  unmapped_findings: number;
}

/** Report paths per kind, checked: known kinds, 1..100 paths in all. */
export function parseReports(reports: unknown): { tool: string; kind: string; path: string }[] {
  if (typeof reports !== "object" || reports === null || Array.isArray(reports)) {
    throw new InvalidArgumentError(
      `Pass reports as an object of report paths per tool, e.g. {"prowler": ["/path/out.ocsf.json"]}; tools: ${
        INGEST_TOOLS.join(", ")
      }.`,
    );
  }
  const out: { tool: string; kind: string; path: string }[] = [];
  for (const [tool, paths] of Object.entries(reports)) {
    const kind = parseEnum(tool, INGEST_TOOLS, { label: "report tool" });
    if (!Array.isArray(paths) || paths.some((p) => typeof p !== "string" || p === "")) {
      throw new InvalidArgumentError(`The reports of ${kind} must be a list of paths.`, {
        value: tool,
      });
    }
    for (const path of paths as string[]) out.push({ tool, kind, path });
  }
  if (out.length === 0 || out.length > MAX_INGEST_PATHS) {
    throw new InvalidArgumentError(
      `Pass 1 to ${MAX_INGEST_PATHS} report paths in all (got ${out.length}).`,
    );
  }
  return out;
}

/**
 * Merges `incoming` into `target`: assets, edges, findings (with the
 * suppression reasons the report gives them) and compliance results whose id
 * the target lacks, providers (whatever their case) and regions not yet
 * listed.
 * Returns the findings added and those left out as duplicates.
 */
export function mergeRecords(
  target: DatasetRecords,
  incoming: Readonly<DatasetRecords>,
): { added: number; duplicates: number } {
  const ids = <T extends { id: string }>(list: readonly T[]): Set<string> =>
    new Set(list.map((x) => x.id));
  const assetIds = ids(target.assets);
  for (const a of incoming.assets) if (!assetIds.has(a.id)) target.assets.push(a);
  const edgeIds = ids(target.edges);
  for (const e of incoming.edges) if (!edgeIds.has(e.id)) target.edges.push(e);
  const complianceIds = ids(target.compliance);
  for (const c of incoming.compliance) if (!complianceIds.has(c.id)) target.compliance.push(c);
  const findingIds = ids(target.findings);
  let added = 0;
  let duplicates = 0;
  for (const f of incoming.findings) {
    if (findingIds.has(f.id)) duplicates++;
    else {
      findingIds.add(f.id);
      target.findings.push(f);
      added++;
      // A finding the report itself marks suppressed (a muted check) keeps its reason.
      const reason = incoming.suppression_reasons[f.id];
      if (reason !== undefined) target.suppression_reasons[f.id] = reason;
    }
  }
  // Importers differ in the case of provider names: `aws` and `AWS` are one provider.
  const providers = new Set(target.providers.map((p) => p.toLowerCase()));
  for (const p of incoming.providers) {
    if (!providers.has(p.toLowerCase())) {
      providers.add(p.toLowerCase());
      target.providers.push(p);
    }
  }
  for (const r of incoming.regions) if (!target.regions.includes(r)) target.regions.push(r);
  return { added, duplicates };
}

/** Normalises the records' findings in place; returns the counts. */
function normaliseInPlace(records: DatasetRecords): { before: number; after: number } {
  const outcome = normaliseFindings(records.findings);
  records.findings = outcome.findings;
  applyMerges(records, outcome.merged_into);
  return { before: outcome.before, after: outcome.after };
}

/**
 * Reads the reports and merges them into a dataset. Requires `--allow-read`
 * on the report paths. Errors (the workspace unchanged): an unknown tool
 * (close matches), no or too many paths, an unknown target dataset, a new
 * dataset's name taken without `replace`, a report that does not read as its
 * tool's kind.
 */
export async function ingestReports(
  workspace: Workspace,
  reports: unknown,
  options: IngestOptions = {},
): Promise<IngestOutcome> {
  const wanted = parseReports(reports);
  const newDataset = options.newDataset ?? false;
  const replace = options.replace ?? false;
  let name: string;
  if (newDataset) {
    // The default name is made unique (ingested-2, …); an explicit one must be free or replaced.
    name = options.dataset || uniqueName(DEFAULT_INGEST_NAME, (n) => workspace.has(n));
    checkDatasetName(name);
    if (workspace.has(name) && !replace) {
      throw new DatasetExistsError(
        "A dataset of that name is already loaded; pass replace=true or another dataset name " +
          "(data.suggested is free).",
        { value: name, existing: name, suggested: uniqueName(name, (n) => workspace.has(n)) },
      );
    }
  } else {
    name = workspace.dataset(options.dataset).name;
  }
  const read: { report: IngestedReport; records: DatasetRecords }[] = [];
  for (const { tool, kind, path } of wanted) {
    const loaded = await workspace.read(path, { kind });
    read.push({
      report: {
        tool,
        kind: loaded.kind,
        file: loaded.path.slice(loaded.path.lastIndexOf("/") + 1),
        findings: loaded.records.findings.length,
      },
      records: loaded.records,
    });
  }
  const normalise = options.normalise ?? true;
  const merge = (records: DatasetRecords) => {
    let added = 0;
    let duplicates = 0;
    for (const r of read) {
      const m = mergeRecords(records, r.records);
      added += m.added;
      duplicates += m.duplicates;
    }
    const normalised = normalise ? normaliseInPlace(records) : null;
    return { added, duplicates, normalised };
  };
  const reportsRead = read.map((r) => r.report);
  let created = false;
  let replaced = false;
  let merged: ReturnType<typeof merge>;
  if (newDataset) {
    const records = emptyRecords();
    merged = merge(records);
    const outcome = workspace.add(name, records, {
      kind: "ingest",
      source: "ingest_reports",
      metadata: { reports: reportsRead.map((r) => ({ ...r })) as Json },
      activate: options.activate ?? true,
      replace,
    });
    created = true;
    replaced = outcome.replaced;
  } else {
    merged = workspace.mutate(name, (records) => {
      const before = JSON.stringify(records.findings);
      const result = merge(records);
      const changed = result.added > 0 || JSON.stringify(records.findings) !== before;
      return { changed, result };
    });
  }
  const dataset = workspace.dataset(name);
  return {
    dataset: name,
    version: dataset.version,
    created,
    replaced,
    reports: reportsRead,
    added: merged.added,
    duplicates: merged.duplicates,
    normalised: merged.normalised,
    total_findings: dataset.records.findings.length,
    unmapped_findings: dataset.records.findings.filter((f) => !dataset.findingAsset(f)).length,
  };
}
