/**
 * `list_frameworks`: the compliance frameworks of the shipped rulesets,
 * optionally those covering one provider.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import { type CloudContext, translated } from "../context/cloud_context.ts";
import { listRulesetFrameworks } from "../compliance/frameworks.ts";
import { RULESET_CONTROLS_NOTE } from "../compliance/ruleset_controls.ts";
import { PROVIDERS } from "../model/enums.ts";
import { parseEnum } from "../model/parse_enum.ts";

/** The tool's name. */
export const LIST_FRAMEWORKS = "list_frameworks";

/** Builds the tool for one connection. */
export function listFrameworksTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: LIST_FRAMEWORKS,
    toolset: "compliance",
    sensitivity: "public",
    description:
      "List the compliance frameworks of the shipped rulesets (28 names, such as CIS-AWS, PCI-DSS or SOC2-GCP) with the providers each covers; provider keeps those covering AWS, AZURE or GCP. Reads no dataset. Only names are known here, not the rulesets' control definitions; for the frameworks a dataset actually evaluates use compliance_summary.",
    input: z.strictObject({
      provider: z.string().max(16).default("").describe(
        "AWS, AZURE or GCP (any case); empty lists every framework.",
      ),
    }),
    result: z.object({
      provider: z.string().nullable(),
      total: z.number().int(),
      frameworks: z.array(z.object({ framework: z.string(), providers: z.array(z.string()) })),
      controls_available: z.boolean().describe("False: control definitions are not shipped."),
      note: z.string(),
    }),
    ...READS_ONLY,
    run: (args) =>
      translated(async () => {
        await ctx.preloaded;
        const provider = args.provider.trim() === ""
          ? null
          : parseEnum(args.provider, PROVIDERS, { label: "provider" });
        const frameworks = listRulesetFrameworks(provider ?? "");
        return {
          kind: "result",
          result: {
            provider,
            total: frameworks.length,
            frameworks,
            controls_available: false,
            note: RULESET_CONTROLS_NOTE,
          },
        };
      }),
  });
}
