/**
 * Output schemas shared by several cloud tools and resources: the listing
 * entry, the dataset summary, briefs, and diff sections.
 *
 * @module
 */

import { z } from "zod";

/** A count per name (type, severity, account pair…). */
export const countsSchema = z.record(z.string(), z.number().int());

/** A dataset's listing entry. */
export const listingEntrySchema = z.object({
  name: z.string(),
  kind: z.string().describe(
    "How it was made: an input kind (inventory, report, generic, terraform, terraform-plan, aws-api, iam-authorization-details, prowler-asff, prowler-ocsf, prowler-csv, checkov, trivy, scoutsuite), snapshot, demo or ingested.",
  ),
  source: z.string().describe("The path it was loaded from, or how it was made."),
  loaded_at: z.string(),
  version: z.number().int().describe("Bumped on every change of the dataset."),
  providers: z.array(z.string()),
  assets: z.number().int(),
  edges: z.number().int(),
  findings: z.number().int(),
  compliance_results: z.number().int(),
  cached: z.object({
    graph: z.boolean(),
    dependency_graph: z.boolean(),
    ontology: z.boolean(),
    centrality: z.boolean(),
    rag_entity: z.boolean(),
  }).describe("Which derived views are built for this version."),
  active: z.boolean().optional(),
});

/** The workspace's listing: the active dataset's name and every dataset's listing entry. */
export const workspaceListingSchema = z.object({
  active_dataset: z.string().nullable(),
  datasets: z.array(listingEntrySchema),
});

/** The dataset summary (tool, resource and prompts). */
export const datasetSummarySchema = z.object({
  dataset: z.string(),
  kind: z.string(),
  source: z.string(),
  loaded_at: z.string(),
  version: z.number().int(),
  providers: z.array(z.string()),
  total_assets: z.number().int(),
  total_edges: z.number().int(),
  total_findings: z.number().int(),
  open_findings: z.number().int(),
  suppressed_findings: z.number().int(),
  severity_breakdown: countsSchema.describe(
    "Open findings per severity, worst first; zeros left out.",
  ),
  accounts: z.number().int(),
  regions: z.number().int(),
  internet_exposed: z.number().int(),
  cross_account_edges: z.number().int(),
  unlinked_assets: z.number().int(),
  unresolved_references: z.number().int(),
  compliance_frameworks: z.array(z.string()),
  assets_by_type: countsSchema.describe("The 15 most common asset types."),
  assets_by_provider: countsSchema,
  edges_by_type: countsSchema,
  has_organization: z.boolean(),
  coverage_records: z.number().int(),
  organization: z.object({
    id: z.string().nullable(),
    accounts: z.number().int(),
    ous: z.number().int(),
    control_tower: z.boolean(),
    governed_regions: z.array(z.string()),
  }).optional(),
});

/** An asset brief. */
export const assetBriefSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  provider: z.string(),
  region: z.string(),
  account_id: z.string().nullable(),
  arn: z.string().nullable(),
  internet_exposed: z.boolean().describe(
    "Reachable from the internet: flagged so by the source data, or the target of a grant or role trust to any principal `*` that no policy condition or S3 public access block limits.",
  ),
  open_findings: z.number().int(),
  max_severity: z.string().nullable(),
  uri: z.string().describe("cloudg://assets/<id> resource with the asset's detail."),
  tags: z.record(z.string(), z.string()).optional(),
});

/** Where an asset is: its id, name, ARN, type, account and region (graph rankings list these). */
export const assetRefSchema = z.object({
  id: z.string(),
  name: z.string(),
  arn: z.string().nullable(),
  type: z.string(),
  account_id: z.string().nullable(),
  region: z.string(),
});

/**
 * A ranking of assets: each asset's reference with the figures `fields`
 * declare, and how many are listed.
 */
export const assetRankingSchema = <F extends z.ZodRawShape>(fields: F) =>
  z.object({ items: z.array(assetRefSchema.extend(fields)), returned: z.number().int() });

/** A finding brief. */
export const findingBriefSchema = z.object({
  id: z.string(),
  title: z.string(),
  severity: z.string(),
  risk_score: z.number(),
  source_tool: z.string(),
  resource_id: z.string(),
  resource_arn: z.string().nullable(),
  asset_id: z.string().nullable(),
  asset_name: z.string().nullable(),
  compliance_frameworks: z.array(z.string()),
  is_suppressed: z.boolean(),
  cvss_score: z.number().nullable(),
  detected_at: z.string().nullable(),
  uri: z.string(),
});

/** An edge brief. */
export const edgeBriefSchema = z.object({
  id: z.string(),
  source: z.string(),
  source_name: z.string(),
  target: z.string(),
  target_name: z.string(),
  edge_type: z.string(),
  relationship: z.string().nullable(),
  port_range: z.string().optional(),
  protocol: z.string().optional(),
  cidr: z.string().optional(),
  description: z.string().optional(),
  ports: z.array(z.number().int()).optional().describe(
    "The first 20 ports the rule names one by one (single ports, and ranges of at most 65 ports written out); port_range is the whole rule.",
  ),
  direction: z.string().optional(),
  cross_account: z.boolean().optional(),
  conditional: z.boolean().optional().describe(
    "Present (true) when a policy condition (such as aws:SourceOwner) limits the grant or trust, so it is not open to every principal; on a grant or trust to any principal `*`, only a condition limiting who may call counts.",
  ),
});

/** One section of a diff. */
export const diffSectionSchema = <T extends z.ZodType>(item: T) =>
  z.object({ count: z.number().int(), items: z.array(item), truncated: z.boolean() });

const diffAsset = z.object({
  id: z.string(),
  key: z.string(),
  name: z.string(),
  type: z.string(),
  account_id: z.string().nullable(),
  region: z.string(),
});
const diffEdge = z.object({
  source: z.string(),
  target: z.string(),
  edge_type: z.string(),
  relationship: z.string(),
});
const diffFinding = z.object({
  id: z.string(),
  title: z.string(),
  severity: z.string(),
  resource: z.string(),
  source_tool: z.string(),
});

/** A drift report between two datasets. */
export const datasetDiffSchema = z.object({
  base: z.string(),
  target: z.string(),
  assets: z.object({
    compared: z.string().describe(
      "What assets are compared on, and which attributes an import keeps (others are not compared).",
    ),
    added: diffSectionSchema(diffAsset),
    removed: diffSectionSchema(diffAsset),
    changed: diffSectionSchema(diffAsset.extend({
      changed_fields: z.array(z.string()),
      internet_exposed: z.object({ before: z.boolean(), after: z.boolean() }).optional(),
    })),
    unchanged: z.number().int(),
  }),
  edges: z.object({ added: diffSectionSchema(diffEdge), removed: diffSectionSchema(diffEdge) }),
  findings: z.object({
    new: diffSectionSchema(diffFinding),
    resolved: diffSectionSchema(diffFinding),
    severity_changed: diffSectionSchema(diffFinding.extend({ severity_before: z.string() })),
  }),
  newly_internet_exposed: diffSectionSchema(diffAsset),
});

/** A graph node that is not an asset: a CIDR, an external id, or the virtual internet. */
export const placeholderBriefSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string().describe("EXTERNAL."),
  external: z.literal(true),
});

/** A graph node: an asset brief, or a placeholder brief. */
export const nodeBriefSchema = z.union([assetBriefSchema, placeholderBriefSchema]);

/** A path hop: the asset's facts with nulls left out, or an external placeholder. */
export const hopBriefSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  account_id: z.string().optional(),
  internet_exposed: z.boolean().optional(),
  open_findings: z.number().int().optional(),
  max_severity: z.string().optional(),
  external: z.literal(true).optional(),
});

/** One graph path. */
export const graphPathSchema = z.object({
  length: z.number().int().describe("Hops."),
  nodes: z.array(hopBriefSchema),
  edge_types: z.array(z.string()).describe(
    "The edge type of each hop (SG_ADMITS where a group admits traffic to what it guards).",
  ),
  summary: z.string().describe("Node names joined with ' -> '."),
});

/**
 * How a bounded answer says it was cut: `truncated`, and `bounds_hit`, the
 * bounds that stopped it (described by `bounds`, e.g. "max_nodes and/or max_walk.").
 */
export function truncationFields(
  bounds?: string,
): { truncated: z.ZodBoolean; bounds_hit: z.ZodOptional<z.ZodArray<z.ZodString>> } {
  const hit = z.array(z.string()).optional();
  return { truncated: z.boolean(), bounds_hit: bounds === undefined ? hit : hit.describe(bounds) };
}

/**
 * The answer of a bounded path search: the paths (each as `path` declares),
 * how many were found before the max_paths cut, and which bounds cut it.
 */
export const pathSearchFields = <P extends z.ZodType>(path: P, bounds: string) => ({
  paths: z.array(path),
  total_found: z.number().int(),
  ...truncationFields(bounds),
});

/** A file an export tool wrote under the output directory. */
export const writtenFileSchema = z.object({
  path: z.string().describe("Absolute path of the file."),
  relative_path: z.string().describe("Path under the output directory, '/'-separated."),
  bytes: z.number().int().describe("Bytes written."),
});
