/**
 * `organization_topology`: the organisation, its units and accounts.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, datasetArgument, withDataset } from "../context/cloud_context.ts";
import { organizationTopology } from "../inventory/organization.ts";
import { mostArgument } from "../schemas/arguments.ts";

/** The tool's name. */
export const ORGANIZATION_TOPOLOGY = "organization_topology";

/** Builds the tool for one connection. */
export function organizationTopologyTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: ORGANIZATION_TOPOLOGY,
    toolset: "inventory",
    sensitivity: "confidential",
    description:
      "Show the organisation: its id, management account, Control Tower state and governed regions, organisational units, and accounts (id order, at most max_accounts) with the assets each holds in the dataset. Read from the organisation discovery data when the dataset has it (source organization_discovery), else from ORGANIZATION, ORG_UNIT and CLOUD_ACCOUNT assets (source map_assets), else source null with a hint. include_policies adds the organisation policies.",
    input: z.strictObject({
      include_policies: z.boolean().default(false).describe("Add the organisation's policies."),
      max_accounts: mostArgument("accounts listed", 1000, 200),
      dataset: datasetArgument,
    }),
    result: z.object({
      dataset: z.string(),
      source: z.enum(["organization_discovery", "map_assets"]).nullable(),
      organization: z.object({
        id: z.string().nullable(),
        arn: z.string().nullable(),
        management_account_id: z.string().nullable(),
        root_id: z.string().nullable(),
        control_tower: z.boolean(),
        home_region: z.string().nullable(),
        governed_regions: z.array(z.string()),
      }).nullable(),
      ous: z.array(z.object({
        id: z.string(),
        name: z.string().nullable(),
        parent: z.string().nullable(),
        accounts: z.number().int(),
      })),
      accounts: z.array(z.object({
        id: z.string(),
        name: z.string().nullable(),
        parent: z.string().nullable(),
        status: z.string().nullable(),
        assets: z.number().int(),
        external: z.boolean(),
      })),
      accounts_total: z.number().int(),
      truncated: z.boolean(),
      policies: z.array(z.record(z.string(), z.unknown())).optional(),
      hint: z.string().optional(),
    }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const topology = organizationTopology(dataset, {
          includePolicies: args.include_policies,
          maxAccounts: args.max_accounts,
        });
        return { kind: "result", result: { dataset: dataset.name, ...topology } };
      }),
  });
}
