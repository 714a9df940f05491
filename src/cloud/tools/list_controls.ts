/**
 * `list_controls`: the controls of a framework as a dataset evaluates them,
 * with their status and open findings; for the shipped rulesets only the
 * framework names are known, and the answer says so.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, READS_ONLY, type ToolDefinition } from "../../core/catalog.ts";
import {
  type CloudContext,
  datasetPageArguments,
  pageSchema,
  translated,
} from "../context/cloud_context.ts";
import { listControls, requireFrameworks } from "../compliance/rollup.ts";
import { rulesetControls } from "../compliance/ruleset_controls.ts";
import { type CursorScope, paginate } from "../model/cursors.ts";
import { parseEnum } from "../model/parse_enum.ts";

/** The tool's name. */
export const LIST_CONTROLS = "list_controls";

/** Where controls come from. */
const SOURCES = ["dataset", "ruleset"] as const;

/** Builds the tool for one connection. */
export function listControlsTool(ctx: CloudContext): ToolDefinition {
  return defineTool({
    name: LIST_CONTROLS,
    toolset: "compliance",
    sensitivity: "internal",
    description:
      "List the controls of a framework. With source dataset (default): every control the dataset has results for, with its status (FAIL when a failing result has open findings, PASS (all findings suppressed), else the result's status), result count, open findings and worst severity, sorted by framework then control id; status keeps one status. framework is an exact name (any case) or else a part of names. With source ruleset: only the names of the 28 shipped ruleset frameworks are known, not their controls, so the answer names the matching frameworks, lists no controls and says so in note.",
    input: z.strictObject({
      framework: z.string().min(1).max(200).describe(
        "A framework name or part of one (any case), e.g. CIS-AWS or CIS.",
      ),
      status: z.string().max(16).default("").describe(
        "Keep controls of this status: PASS, FAIL, NOT_APPLICABLE or MANUAL (any case); empty keeps all.",
      ),
      source: z.string().max(16).default("dataset").describe(
        "dataset (controls the dataset evaluates, default) or ruleset (shipped framework names only).",
      ),
      ...datasetPageArguments,
    }),
    result: pageSchema(z.object({
      framework: z.string(),
      control_id: z.string(),
      control_title: z.string(),
      status: z.string(),
      results: z.number().int(),
      open_findings: z.number().int(),
      max_severity: z.string().nullable(),
    })).extend({
      source: z.string(),
      dataset: z.string().nullable().describe("The dataset read; null for source ruleset."),
      frameworks: z.array(z.string()).describe("The framework names the argument matched."),
      controls_available: z.boolean().describe(
        "False when the source cannot list controls (ruleset).",
      ),
      note: z.string().optional(),
    }),
    ...READS_ONLY,
    run: (args) =>
      translated(async () => {
        await ctx.preloaded;
        const source = parseEnum(args.source, SOURCES, { label: "source" });
        const filters = { framework: args.framework, status: args.status, source };
        const pageOf = <T>(rows: readonly T[], scope: CursorScope) =>
          paginate(rows, { limit: args.limit, cursor: args.cursor ?? null, scope, filters });
        if (source === "ruleset") {
          const answer = rulesetControls(args.framework);
          const page = pageOf([], null);
          return {
            kind: "result",
            result: {
              ...page,
              source,
              dataset: null,
              frameworks: answer.frameworks.map((f) => f.framework),
              controls_available: false,
              note: answer.note,
            },
          };
        }
        const dataset = ctx.dataset(args.dataset);
        const names = requireFrameworks(dataset, args.framework);
        const rows = listControls(dataset, args.framework, { status: args.status });
        const page = pageOf(rows, dataset);
        return {
          kind: "result",
          result: {
            ...page,
            source,
            dataset: dataset.name,
            frameworks: names,
            controls_available: true,
          },
        };
      }),
  });
}
