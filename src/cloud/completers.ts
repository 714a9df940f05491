/**
 * Candidate sources for cloud completions (§3.2), without MCP: each source
 * reads the workspace live and says how its candidates are to be matched
 * and ordered by the core completion engine.
 *
 * @module
 */

import { RULESET_FRAMEWORKS } from "./compliance/frameworks.ts";
import { DOC_TOPIC_NAMES } from "./docs/topics.ts";
import { ASSET_TYPES, SEVERITIES } from "./model/enums.ts";
import { compareCodePoints } from "./model/order.ts";
import { riskScore } from "./model/records.ts";
import type { DatasetView } from "./model/view.ts";
import type { Workspace } from "./workspace/workspace.ts";
import { countBy } from "./model/counts.ts";

/** Graph export formats. */
export const GRAPH_FORMATS: readonly string[] = ["d3", "cytoscape", "graphml"];
/** Ontology serialisations. */
export const ONTOLOGY_FORMATS: readonly string[] = ["turtle", "json-ld", "xml", "nt"];

/** An asset candidate: the value offered, and the keys it matches on (name, ARN or "", id). */
export interface RefCandidate {
  /** The value offered. */
  value: string;
  /** The strings matched against the input: name, ARN (or ""), id. */
  keys: string[];
}

/** The context a completer reads: the other arguments already filled in. */
export interface CompleterContext {
  /** `context.arguments` as sent; `dataset` selects the dataset (empty → active). */
  arguments?: Readonly<Record<string, string>>;
}

/**
 * One completer: a live source plus how to match it.
 * - `match`: `prefix`; `prefix-then-substring` (prefix matches first, then the rest that
 *   contain the input, each group in code-point order); `substring` (every candidate
 *   containing the input).
 * - `order`: `code-point` (sorted) or `source` (the source's order kept, e.g. highest risk first).
 * - `normalize`: NFKC + lower-case both sides; false = case-sensitive.
 * - `upperCaseInput`: upper-case the input first (enum arguments).
 */
export interface CompleterSpec<C = string> {
  /** Reads the candidates live for one request. */
  source(context: CompleterContext): C[];
  /** Matching mode. */
  match: "prefix" | "prefix-then-substring" | "substring";
  /** Ordering. */
  order: "code-point" | "source";
  /** Whether NFKC + lower-case applies. */
  normalize: boolean;
  /** Whether the input is upper-cased first. */
  upperCaseInput: boolean;
}

/** The completer names §3.2 defines. */
export type CompleterName =
  | "dataset"
  | "asset"
  | "finding"
  | "severity"
  | "framework"
  | "graph_format"
  | "ontology_format"
  | "asset_type"
  | "topic";

function targetDataset(workspace: Workspace, context: CompleterContext): DatasetView | undefined {
  return workspace.find(context.arguments?.["dataset"] ?? "");
}

/** Loaded dataset names, workspace insertion order. */
export function datasetCandidates(workspace: Workspace): string[] {
  return workspace.names();
}

/**
 * Asset candidates of a dataset: the value is the asset's name when no other
 * asset has it, else its ARN (or id); keys are name, ARN (or ""), id.
 */
export function refCandidates(view: DatasetView | undefined): RefCandidate[] {
  if (!view) return [];
  return view.derived(REF_CANDIDATES_KEY, () => buildRefCandidates(view));
}

/** The derived-view key caching a dataset's asset candidates. */
export const REF_CANDIDATES_KEY = "ref_candidates";

function buildRefCandidates(view: DatasetView): RefCandidate[] {
  const names = countBy(view.records.assets, (asset) => asset.name);
  return view.records.assets.map((asset) => ({
    value: names.get(asset.name) === 1 ? asset.name : asset.arn ?? asset.id,
    keys: [asset.name, asset.arn ?? "", asset.id],
  }));
}

/** Every finding id (suppressed included), highest risk first, dataset order on ties. */
export function findingIdCandidates(view: DatasetView | undefined): string[] {
  if (!view) return [];
  return view.derived("finding_id_candidates", () => buildFindingIds(view));
}

function buildFindingIds(view: DatasetView): string[] {
  return view.records.findings
    .map((finding, index) => ({ id: finding.id, risk: riskScore(finding), index }))
    .sort((a, b) => b.risk - a.risk || a.index - b.index)
    .map((f) => f.id);
}

/**
 * Frameworks of the dataset (compliance results and finding tags), sorted;
 * the ruleset framework names when the dataset has none (or there is no dataset).
 */
export function frameworkCandidates(view: DatasetView | undefined): string[] {
  const names = new Set<string>();
  if (view) {
    for (const result of view.records.compliance) names.add(result.framework);
    for (const finding of view.records.findings) {
      for (const framework of finding.compliance_frameworks) names.add(framework);
    }
  }
  const list = names.size > 0 ? [...names] : [...RULESET_FRAMEWORKS];
  return list.sort(compareCodePoints);
}

const fixed = (values: readonly string[]): () => string[] => () => [...values];

/** Every cloud completer, reading `workspace` live on each call. */
export function cloudCompleters(workspace: Workspace): {
  asset: CompleterSpec<RefCandidate>;
} & Record<Exclude<CompleterName, "asset">, CompleterSpec> {
  const prefix = { match: "prefix", order: "code-point", normalize: true, upperCaseInput: false };
  return {
    dataset: { ...prefix, order: "source", source: () => datasetCandidates(workspace) },
    asset: {
      ...prefix,
      match: "prefix-then-substring",
      source: (context) => refCandidates(targetDataset(workspace, context)),
    },
    finding: {
      ...prefix,
      order: "source",
      normalize: false,
      source: (context) => findingIdCandidates(targetDataset(workspace, context)),
    },
    severity: { ...prefix, order: "source", upperCaseInput: true, source: fixed(SEVERITIES) },
    framework: {
      ...prefix,
      match: "substring",
      source: (context) => frameworkCandidates(targetDataset(workspace, context)),
    },
    graph_format: { ...prefix, order: "source", source: fixed(GRAPH_FORMATS) },
    ontology_format: { ...prefix, order: "source", source: fixed(ONTOLOGY_FORMATS) },
    asset_type: { ...prefix, order: "source", upperCaseInput: true, source: fixed(ASSET_TYPES) },
    topic: { ...prefix, order: "source", source: fixed(DOC_TOPIC_NAMES) },
  } as
    & { asset: CompleterSpec<RefCandidate> }
    & Record<
      Exclude<CompleterName, "asset">,
      CompleterSpec
    >;
}
