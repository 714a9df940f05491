/**
 * The `export` toolset of the cloud workbench: reports, Terraform and the
 * ontology written as files under the operator's output directory.
 *
 * @module
 */

import type { ToolDefinition } from "../../core/catalog.ts";
import type { CloudContext } from "../context/cloud_context.ts";
import { exportOntologyTool } from "../tools/export_ontology.ts";
import { exportReportTool } from "../tools/export_report.ts";
import { exportTerraformTool } from "../tools/export_terraform.ts";
import { terraformPreviewTool } from "../tools/terraform_preview.ts";
import { EXPORT_TOOLSET } from "./info.ts";

export { EXPORT_TOOLSET };

/** The toolset's tools, in the order they are listed. */
export function exportTools(ctx: CloudContext): ToolDefinition[] {
  return [
    terraformPreviewTool(ctx),
    exportTerraformTool(ctx),
    exportReportTool(ctx),
    exportOntologyTool(ctx),
  ];
}
