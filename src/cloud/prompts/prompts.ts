/**
 * The cloud workbench's eleven guided prompts. Each renders a task message
 * that names tools and refers to the context (never a workspace value), a
 * JSON context message computed from the session, and, where a resource
 * serves the same data, that resource embedded exactly as it reads.
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
import { datasetSummary } from "../workspace/summary.ts";

const DATASET_ARGUMENT = {
  name: "dataset",
  description: "The dataset to work on; empty means the active dataset.",
  required: false,
  completion: "dataset",
};

const REF_ARGUMENT = {
  name: "ref",
  description: "The asset: its id, ARN or unique name.",
  required: true,
  completion: "asset",
};

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

function contract(
  ctx: CloudContext,
  base: Omit<PromptContract, "render">,
  render: Render,
  options: { needsData?: boolean } = {},
): PromptContract {
  return {
    ...base,
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
    contract(ctx, {
      name: "security_posture_review",
      title: "Security posture review",
      description: "Review the security posture of a whole estate.",
      objective:
        "Rate the estate's posture (critical, poor, fair or good) and back it with the top risks, quick wins and structural fixes.",
      arguments: [DATASET_ARGUMENT],
      steps: [
        {
          tools: ["top_risks", "internet_exposure"],
          instruction:
            "Rank the riskiest assets (`top_risks` with `top` 10) and list what the internet reaches (`internet_exposure`).",
        },
        {
          tools: ["attack_paths", "lateral_movement_paths", "cross_account_edges"],
          instruction:
            "Trace routes from the internet to crown jewels, identity pivots, and trust to external accounts (`cross_account_edges` with `external_only` true).",
        },
        {
          tools: ["security_coverage", "compliance_summary"],
          instruction:
            "Check which security services cover the estate and how each framework fares.",
        },
      ],
    }, ({ dataset }) => ({
      context: {
        top_risks: riskRows(dataset, 5),
        compliance: complianceRollup(dataset).slice(0, 5),
      },
      embed: summaryEmbed(dataset),
    })),
    contract(ctx, {
      name: "executive_summary",
      title: "Executive summary",
      description: "A one-page, non-technical summary of an estate's risk.",
      objective:
        "Write one page for executives: rounded numbers, no identifiers, the three risks that matter and what fixing them buys.",
      arguments: [DATASET_ARGUMENT],
      steps: [
        {
          tools: ["findings_summary", "compliance_summary"],
          instruction: "Gather the findings by severity and the compliance posture.",
        },
        { tools: ["top_risks"], instruction: "Name the three riskiest areas (`top` 3)." },
      ],
    }, ({ dataset }) => {
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
    contract(ctx, {
      name: "attack_surface_report",
      title: "Attack surface report",
      description: "Report the external attack surface of an estate.",
      objective:
        "Describe what an outside attacker can reach, by which rules and ports, and which routes lead further in.",
      arguments: [DATASET_ARGUMENT],
      steps: [
        {
          tools: ["internet_exposure", "get_edges"],
          instruction:
            "List exposed assets (`internet_exposure` with `limit` 100) and the internet rules for SSH and RDP (`get_edges` with `internet_only` true and `port` 22, then 3389).",
        },
        {
          tools: ["attack_paths", "find_paths", "findings_for_asset"],
          instruction:
            "Follow routes inward (`attack_paths`, `find_paths` with `source` 'internet') and check the findings of each entry point.",
        },
      ],
    }, ({ dataset }) => {
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
    contract(ctx, {
      name: "investigate_asset",
      title: "Investigate asset",
      description: "A deep dive on one asset.",
      objective:
        "Explain what the asset in the context is, what it connects to and depends on, what is wrong with it, and what its compromise would reach.",
      arguments: [REF_ARGUMENT, DATASET_ARGUMENT],
      steps: [
        {
          tools: ["get_asset", "get_asset_metadata"],
          instruction: "Read the asset named by `asset.id` in the context, then its metadata.",
        },
        {
          tools: ["neighbors", "depends_on", "dependents"],
          instruction:
            "Map its surroundings (`neighbors` with `depth` 2) and its dependencies both ways.",
        },
        {
          tools: ["findings_for_asset", "get_finding"],
          instruction: "Read its findings and the detail of the worst ones.",
        },
        {
          tools: ["blast_radius", "find_paths", "ontology_neighbourhood"],
          instruction: "Assess its blast radius, the paths to it, and its semantic relations.",
        },
      ],
    }, ({ dataset, active }, args) => {
      const asset = resolveAsset(dataset, args.ref ?? "");
      return active
        ? { context: {}, embed: assetEmbed(dataset, asset) }
        : { context: { ...assetDetail(dataset, asset.id) } };
    }),
    contract(ctx, {
      name: "blast_radius_assessment",
      title: "Blast radius assessment",
      description: "The impact of compromising or losing one asset.",
      objective:
        "Assess two scenarios for the asset in the context — compromised, and deleted — and what each takes down or exposes.",
      arguments: [REF_ARGUMENT, DATASET_ARGUMENT],
      steps: [
        {
          tools: ["blast_radius", "dependency_tree"],
          instruction:
            "Measure both views of the blast radius and the tree of what depends on it (`dependency_tree` with `direction` 'down').",
        },
        {
          tools: ["lateral_movement_paths", "findings_for_asset"],
          instruction:
            "Follow identity pivots from it (`lateral_movement_paths` with `start` set to `asset.id`) and read its findings.",
        },
      ],
    }, ({ dataset, active }, args) => {
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
    contract(ctx, {
      name: "change_impact_analysis",
      title: "Change impact analysis",
      description: "The impact, rollout and rollback of a planned change to one asset.",
      objective:
        "Say what the planned change in the context affects, how to roll it out safely, how to roll it back, and how to verify it.",
      arguments: [
        REF_ARGUMENT,
        {
          name: "change",
          description: "The planned change, in words.",
          required: false,
        },
        DATASET_ARGUMENT,
      ],
      steps: [
        {
          tools: ["dependents", "dependency_tree", "shared_dependencies"],
          instruction:
            "Find what depends on the asset (`dependents` with `max_depth` 5, `dependency_tree` with `direction` 'down') and the shared dependencies at stake.",
        },
        {
          tools: ["cross_account_edges", "get_asset_metadata"],
          instruction:
            "Check other accounts involved (`cross_account_edges` with `account_id` from the context) and the configuration the change touches.",
        },
        {
          tools: ["snapshot_dataset", "diff_datasets"],
          instruction: "Plan the verification: snapshot before, diff after.",
        },
      ],
    }, ({ dataset, active }, args) => {
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
    contract(ctx, {
      name: "cross_account_trust_review",
      title: "Cross-account trust review",
      description: "Review IAM trust and access across accounts.",
      objective:
        "Judge every trust and grant that crosses an account boundary, especially to external accounts, and say which to remove or narrow.",
      arguments: [DATASET_ARGUMENT],
      steps: [
        {
          tools: ["cross_account_edges", "get_edges"],
          instruction:
            "List cross-account edges (`external_only` true first) and the trust and grant edges (`get_edges` with `edge_types` IAM_TRUST and GRANTS_ACCESS, `cross_account_only` true).",
        },
        {
          tools: ["lateral_movement_paths", "organization_topology"],
          instruction:
            "Follow the pivots they allow and place the accounts in the organisation (`include_policies` true).",
        },
      ],
    }, ({ dataset }) => {
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
    contract(ctx, {
      name: "compliance_gap_analysis",
      title: "Compliance gap analysis",
      description: "Failing controls of one framework and the backlog to fix them.",
      objective:
        "List the failing controls of the framework in the context, the assets behind them, and a prioritised backlog.",
      arguments: [
        {
          name: "framework",
          description: "The framework, such as CIS-AWS, PCI-DSS or NIST-800-53.",
          required: true,
          completion: "framework",
        },
        DATASET_ARGUMENT,
      ],
      steps: [
        {
          tools: ["compliance_summary", "list_controls"],
          instruction:
            "Read the framework's posture and its failing controls (`list_controls` with `status` 'FAIL').",
        },
        {
          tools: ["control_status", "compliance_gaps"],
          instruction: "Drill into each failing control and the assets failing most.",
        },
      ],
    }, ({ dataset, active }, args) => {
      const framework = args.framework ?? "";
      if (matchFrameworks(dataset, framework).length === 0) {
        return { context: { framework, posture: complianceRollup(dataset, framework) } };
      }
      const detail = frameworkDetail(dataset, framework);
      return active
        ? { context: { framework }, embed: { uri: complianceUri(framework), data: detail } }
        : { context: { ...detail, framework } };
    }),
    contract(ctx, {
      name: "remediation_plan",
      title: "Remediation plan",
      description: "A phased plan to fix findings at or above a severity.",
      objective: "Plan the remediation in phases, riskiest first.",
      arguments: [
        {
          name: "severity",
          description: "The lowest severity to include (default HIGH).",
          required: false,
          completion: "severity",
        },
        DATASET_ARGUMENT,
      ],
      steps: [
        {
          tools: ["list_findings", "top_risks"],
          instruction:
            "List the findings at or above the severity (`list_findings` with `min_severity` and `limit` 100) and the riskiest assets (`top_risks` with `top` 20).",
        },
        {
          tools: ["get_finding", "blast_radius", "suppress_findings"],
          instruction:
            "Read each finding's remediation, weigh the blast radius, and suppress accepted risks with a reason.",
        },
      ],
    }, ({ dataset }, args) => {
      const severity = parseEnum(args.severity || "HIGH", SEVERITIES, { label: "severity" });
      return {
        taskNote: `Include findings of severity ${severity} and above.`,
        context: { min_severity: severity, top_risks: riskRows(dataset, 10, severity) },
        embed: summaryEmbed(dataset),
      };
    }),
    contract(ctx, {
      name: "incident_triage",
      title: "Incident triage",
      description: "Triage one finding: exploitability and containment.",
      objective:
        "Decide how exploitable the finding in the context is, what it exposes, and how to contain it now.",
      arguments: [
        {
          name: "finding_id",
          description: "The finding's id.",
          required: true,
          completion: "finding",
        },
        DATASET_ARGUMENT,
      ],
      steps: [
        {
          tools: ["get_finding", "get_asset"],
          instruction: "Read the finding and the asset named by `target_ref` in the context.",
        },
        {
          tools: ["internet_exposure", "find_paths", "blast_radius", "lateral_movement_paths"],
          instruction: "Check how it is reached, what it reaches, and where an attacker goes next.",
        },
      ],
    }, ({ dataset, active }, args) => {
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
    contract(
      ctx,
      {
        name: "drift_review",
        title: "Drift review",
        description: "Explain the differences between two datasets.",
        objective:
          "Explain what changed between the two datasets in the context, which changes matter for security, and what to check next.",
        arguments: [
          {
            name: "base",
            description: "The baseline dataset.",
            required: true,
            completion: "dataset",
          },
          {
            name: "target",
            description: "The later dataset; empty means the active one.",
            required: false,
            completion: "dataset",
          },
        ],
        steps: [
          {
            tools: ["diff_datasets"],
            instruction: "Read the full drift report (`limit` 200).",
          },
          {
            tools: ["get_asset", "findings_for_asset"],
            instruction: "Inspect the changed and newly exposed assets and their findings.",
          },
        ],
      },
      (_rendering, args) => {
        const base = ctx.dataset(args.base ?? "");
        const target = ctx.dataset(args.target ?? "");
        return {
          context: diffDatasets(base, target, { limit: 25 }) as unknown as Record<string, unknown>,
        };
      },
      { needsData: true },
    ),
  ];
}
