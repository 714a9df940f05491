/**
 * The cloud workbench's eleven guided prompts. Each renders a task message
 * that names tools and refers to the context (never a workspace value), a
 * JSON context message computed from the session, and, where a resource
 * serves the same data, that resource embedded exactly as it reads. What
 * each prompt says (title, description, objective, arguments, steps) is in
 * `catalog.json`; how it renders from the session is here.
 *
 * @module
 */

import {
  embeddedResourceMessage,
  jsonContextMessage,
  PromptArgumentError,
  type PromptContract,
  type PromptMessage,
  renderTask,
} from "../../core/prompts.ts";
import { ToolFailure } from "../../core/errors.ts";
import type { CloudContext } from "../context/cloud_context.ts";
import { complianceRollup, frameworkDetail, matchFrameworks } from "../compliance/rollup.ts";
import { findingDetail } from "../findings/detail.ts";
import { resolveFinding } from "../findings/queries.ts";
import { crossAccountEdges } from "../graph/cross_account.ts";
import { dependents, dependsOn } from "../graph/dependencies.ts";
import { topRisks } from "../graph/risk.ts";
import { assetDetail } from "../inventory/asset_detail.ts";
import {
  assetBrief,
  assetUri,
  complianceUri,
  datasetSummaryUri,
  findingUri,
} from "../model/briefs.ts";
import { SEVERITIES, type Severity } from "../model/enums.ts";
import type { Asset } from "../model/records.ts";
import { CloudError } from "../model/errors.ts";
import { parseEnum } from "../model/parse_enum.ts";
import { resolveAsset } from "../model/references.ts";
import type { Dataset } from "../workspace/dataset.ts";
import { diffDatasets } from "../workspace/diff.ts";
import PROMPT_CATALOG from "./catalog.json" with { type: "json" };
import { datasetSummary } from "../workspace/summary.ts";

/** The message sent when no dataset is loaded. */
const NOTHING_LOADED: PromptMessage = {
  role: "user",
  content: {
    type: "text",
    text:
      "No cloud dataset is loaded yet. Call `workspace_status`, then `load_dataset` with `path` set to an inventory directory, a findings.json report or {assets, edges, findings} JSON under an allowed root, and run this prompt again.",
  },
};

interface Rendering {
  /** The dataset the prompt works on. */
  dataset: Dataset;
  /** Whether it is the active dataset (asset, finding and compliance resources read the active one). */
  active: boolean;
}

/** Session values for the task, as data; the renderer returns the context and the embedded resource. */
type Render = (
  rendering: Rendering,
  args: Readonly<Record<string, string>>,
) => {
  context: Record<string, unknown>;
  embed?: { uri: string; data: unknown };
  /** A sentence appended to the task (a severity level, never a workspace identifier). */
  taskNote?: string;
};

function summaryEmbed(dataset: Dataset): { uri: string; data: unknown } {
  return { uri: datasetSummaryUri(dataset.name), data: datasetSummary(dataset) };
}

/** The asset resource of one asset, as its URI reads. */
function assetEmbed(dataset: Dataset, asset: Asset): { uri: string; data: unknown } {
  return { uri: assetUri(asset), data: assetDetail(dataset, asset.id) };
}

/** The five (or `top`) riskiest assets as prompt context rows. */
function riskRows(dataset: Dataset, top: number, minSeverity?: Severity): unknown[] {
  return topRisks(dataset, { top, ...(minSeverity ? { minSeverity } : {}) }).items.map((row) => ({
    asset: row.asset.name,
    id: row.asset.id,
    type: row.asset.type,
    score: row.score,
    internet_exposed: row.asset.internet_exposed,
    top_finding: row.top_findings[0]?.title ?? null,
  }));
}

/** What each prompt says (title, description, objective, arguments, steps), by name. */
const TEXTS: ReadonlyMap<string, Omit<PromptContract, "render">> = new Map(
  (PROMPT_CATALOG as Omit<PromptContract, "render">[]).map((text) => [text.name, text]),
);

function contract(
  ctx: CloudContext,
  name: string,
  render: Render,
  options: { needsData?: boolean } = {},
): PromptContract {
  const text = TEXTS.get(name);
  if (!text) throw new Error(`prompts/catalog.json has no prompt ${name}`);
  return {
    ...structuredClone(text),
    render: (self, args) => {
      try {
        const named = args.dataset ?? "";
        if (ctx.workspace.size === 0 && named === "" && !options.needsData) return [NOTHING_LOADED];
        const dataset = ctx.dataset(named);
        const rendered = render(
          { dataset, active: dataset.name === ctx.workspace.activeName },
          args,
        );
        const task = renderTask(self) + (rendered.taskNote ? `\n\n${rendered.taskNote}` : "");
        const messages: PromptMessage[] = [
          { role: "user", content: { type: "text", text: task } },
          jsonContextMessage({ dataset: dataset.name, ...rendered.context }),
        ];
        if (rendered.embed) {
          messages.push(embeddedResourceMessage(rendered.embed.uri, rendered.embed.data));
        }
        return messages;
      } catch (error) {
        if (error instanceof CloudError) throw new PromptArgumentError(error.message);
        if (error instanceof ToolFailure) throw new PromptArgumentError(error.message);
        throw error;
      }
    },
  };
}

/** The eleven prompts, rendering from the connection's workspace. */
export function cloudPrompts(ctx: CloudContext): PromptContract[] {
  return [
    contract(ctx, "security_posture_review", ({ dataset }) => ({
      context: {
        top_risks: riskRows(dataset, 5),
        compliance: complianceRollup(dataset).slice(0, 5),
      },
      embed: summaryEmbed(dataset),
    })),
    contract(ctx, "executive_summary", ({ dataset }) => {
      const s = datasetSummary(dataset);
      return {
        context: {
          providers: s.providers,
          total_assets: s.total_assets,
          total_edges: s.total_edges,
          open_findings: s.open_findings,
          severity_breakdown: s.severity_breakdown,
          accounts: s.accounts,
          regions: s.regions,
          internet_exposed: s.internet_exposed,
          cross_account_edges: s.cross_account_edges,
          compliance_frameworks: s.compliance_frameworks,
          assets_by_type: s.assets_by_type,
        },
        embed: summaryEmbed(dataset),
      };
    }),
    contract(ctx, "attack_surface_report", ({ dataset }) => {
      const exposed = dataset.records.assets.filter((a) => a.is_internet_exposed);
      const byType: Record<string, number> = {};
      for (const a of exposed) byType[a.asset_type] = (byType[a.asset_type] ?? 0) + 1;
      return {
        context: {
          internet_exposed_total: exposed.length,
          exposed_by_type: byType,
          exposed_sample: exposed.slice(0, 15).map((a) => assetBrief(dataset, a)),
        },
        embed: summaryEmbed(dataset),
      };
    }),
    contract(ctx, "investigate_asset", ({ dataset, active }, args) => {
      const asset = resolveAsset(dataset, args.ref ?? "");
      return active
        ? { context: {}, embed: assetEmbed(dataset, asset) }
        : { context: { ...assetDetail(dataset, asset.id) } };
    }),
    contract(ctx, "blast_radius_assessment", ({ dataset, active }, args) => {
      const asset = resolveAsset(dataset, args.ref ?? "");
      const all = dependents(dataset, asset.id, { maxDepth: 10, limit: 1_000_000 });
      const accounts = [
        ...new Set(all.items.map((i) => i.account_id).filter((a): a is string => Boolean(a))),
      ].sort();
      return {
        context: {
          asset: assetBrief(dataset, asset),
          transitive_dependents: all.total,
          accounts_affected: accounts,
          direct_dependents: all.items.filter((i) => i.depth === 1).slice(0, 20),
        },
        ...(active ? { embed: assetEmbed(dataset, asset) } : {}),
      };
    }),
    contract(ctx, "change_impact_analysis", ({ dataset, active }, args) => {
      const asset = resolveAsset(dataset, args.ref ?? "");
      return {
        context: {
          planned_change: args.change || "a configuration change",
          asset: assetBrief(dataset, asset),
          depends_on: dependsOn(dataset, asset.id, { maxDepth: 1, limit: 20 }).items,
          dependents: dependents(dataset, asset.id, { maxDepth: 1, limit: 20 }).items,
        },
        ...(active ? { embed: assetEmbed(dataset, asset) } : {}),
      };
    }),
    contract(ctx, "cross_account_trust_review", ({ dataset }) => {
      const { items } = crossAccountEdges(dataset);
      const pairs: Record<string, number> = {};
      for (const row of items) {
        const key = `${row.source_account} -> ${row.target_account} (${row.edge_type})`;
        pairs[key] = (pairs[key] ?? 0) + 1;
      }
      return {
        context: {
          cross_account_edges: items.length,
          external: items.filter((r) => r.external).length,
          by_account_pair: pairs,
        },
        embed: summaryEmbed(dataset),
      };
    }),
    contract(ctx, "compliance_gap_analysis", ({ dataset, active }, args) => {
      const framework = args.framework ?? "";
      if (matchFrameworks(dataset, framework).length === 0) {
        return { context: { framework, posture: complianceRollup(dataset, framework) } };
      }
      const detail = frameworkDetail(dataset, framework);
      return active
        ? { context: { framework }, embed: { uri: complianceUri(framework), data: detail } }
        : { context: { ...detail, framework } };
    }),
    contract(ctx, "remediation_plan", ({ dataset }, args) => {
      const severity = parseEnum(args.severity || "HIGH", SEVERITIES, { label: "severity" });
      return {
        taskNote: `Include findings of severity ${severity} and above.`,
        context: { min_severity: severity, top_risks: riskRows(dataset, 10, severity) },
        embed: summaryEmbed(dataset),
      };
    }),
    contract(ctx, "incident_triage", ({ dataset, active }, args) => {
      const finding = resolveFinding(dataset, args.finding_id ?? "");
      const asset = dataset.findingAsset(finding);
      const target = asset?.id ?? finding.resource_arn ?? finding.resource_id;
      const taskNote = `The finding's severity is ${finding.severity}.`;
      return active
        ? {
          taskNote,
          context: { target_ref: target },
          embed: { uri: findingUri(finding.id), data: findingDetail(dataset, finding.id) },
        }
        : { taskNote, context: { ...findingDetail(dataset, finding.id), target_ref: target } };
    }),
    contract(ctx, "drift_review", (_rendering, args) => {
      const base = ctx.dataset(args.base ?? "");
      const target = ctx.dataset(args.target ?? "");
      return {
        context: diffDatasets(base, target, { limit: 25 }) as unknown as Record<string, unknown>,
      };
    }, { needsData: true }),
  ];
}
