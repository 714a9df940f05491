/**
 * `security_coverage`: security services per account and region, their
 * gaps, unscanned workloads and internet-facing entry points without a WAF.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { securityCoverage } from "../graph/security_coverage.ts";
import { mostArgument } from "../schemas/arguments.ts";

/** The tool's name. */
export const SECURITY_COVERAGE = "security_coverage";

const bounded = <T extends z.ZodType>(item: T) =>
  z.object({
    total: z.number().int(),
    returned: z.number().int(),
    truncated: z.boolean(),
    items: z.array(item),
  });

/** Builds the tool for one connection. */
export function securityCoverageTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: SECURITY_COVERAGE,
    toolset: "graph",
    sensitivity: "confidential",
    description:
      "Report security tooling coverage: which security services (from assets naming a security_service) are enabled per account and region, the gaps where one is off, workloads (EC2, container registries, functions) no enabled vulnerability scanner monitors, and internet-facing load balancers, API gateways and distributions no WAF protects. Each list holds at most limit items.",
    input: z.strictObject({
      limit: mostArgument("items per list", 500, 50),
      dataset: datasetArgument,
    }),
    result: z.object({
      services_by_account_region: z.record(
        z.string(),
        z.record(z.string(), z.record(z.string(), z.boolean())),
      ).describe("account → region → service → enabled."),
      gaps: bounded(z.string()).describe("'<account>/<region>: <service>' per disabled service."),
      workloads_without_vulnerability_scanning: bounded(z.object({
        name: z.string(),
        arn: z.string().nullable(),
        type: z.string(),
        account_id: z.string().nullable(),
        region: z.string(),
      })),
      internet_facing_without_waf: bounded(z.object({
        name: z.string(),
        arn: z.string().nullable(),
        type: z.string(),
        account_id: z.string().nullable(),
      })),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        return { kind: "result", result: securityCoverage(dataset, { limit: args.limit }) };
      }),
  });
}
