/**
 * `list_accounts`: the accounts (subscriptions, projects) of a dataset with
 * what each holds.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import {
  type CloudContext,
  datasetArgument,
  pageSchema,
  withDataset,
} from "../context/cloud_context.ts";
import { listAccounts } from "../inventory/accounts.ts";
import { paginate } from "../model/cursors.ts";

/** The tool's name. */
export const LIST_ACCOUNTS = "list_accounts";

/** Builds the tool for one connection. */
export function listAccountsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: LIST_ACCOUNTS,
    toolset: "inventory",
    sensitivity: "confidential",
    description:
      "List the accounts (AWS accounts, Azure subscriptions, GCP projects) of a dataset in id order: provider, asset count, regions, internet-exposed assets, open findings, the name of its CLOUD_ACCOUNT asset and whether that marks it external. Assets without an account are counted under `unknown`, last. Paginated (limit default 100).",
    input: z.strictObject({
      limit: z.number().int().min(1).max(500).default(100).describe("Items per page (1 to 500)."),
      cursor: z.string().max(64).optional().describe(
        "The next_cursor of the previous page; leave out for the first page.",
      ),
      dataset: datasetArgument,
    }),
    result: pageSchema(z.object({
      account_id: z.string(),
      provider: z.string(),
      name: z.string().nullable(),
      external: z.boolean(),
      assets: z.number().int(),
      regions: z.array(z.string()),
      internet_exposed: z.number().int(),
      open_findings: z.number().int(),
    })).extend({ dataset: z.string() }),
    ...READS_ONLY,
    run: (args) =>
      withDataset(ctx, args.dataset, (dataset) => {
        const page = paginate(listAccounts(dataset), {
          limit: args.limit,
          cursor: args.cursor,
          scope: dataset,
          filters: {},
        });
        return { kind: "result", result: { dataset: dataset.name, ...page } };
      }),
  });
}
