/**
 * The findings toolset's ingest and derivation tools, kept in their own
 * registry: merging scanner reports, normalising findings, reachability
 * findings.
 *
 * @module
 */

import type { ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context/cloud_context.ts";
import { ingestReportsTool } from "../tools/ingest_reports.ts";
import { normaliseFindingsTool } from "../tools/normalise_findings.ts";
import { reachabilityFindingsTool } from "../tools/reachability_findings.ts";

/** The tools, in spec order (§8, findings). */
export function ingestTools(ctx: CloudContext): ToolDefinition[] {
  return [ingestReportsTool(ctx), normaliseFindingsTool(ctx), reachabilityFindingsTool(ctx)];
}
