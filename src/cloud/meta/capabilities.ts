/**
 * The capability overview (`list_capabilities`): the tools a caller can see,
 * grouped by category with a one-line summary each; what this build does not
 * offer and why; the resources and prompts; suggested workflows; and the
 * conventions every answer follows. Built from plain descriptions of the
 * catalog, so it knows nothing of how tools are served.
 *
 * @module
 */

/** Most characters of a tool summary. */
export const SUMMARY_CHARS = 160;

/** A tool as the overview sees it. */
export interface ToolDescription {
  name: string;
  title: string;
  category: string;
  description: string;
  read_only: boolean;
  open_world: boolean;
  sensitivity: string;
  /** What running it may do beyond answering (changes the workspace, writes files…). */
  capabilities: string[];
}

/** A category (toolset) of the overview. */
export interface CategoryDescription {
  name: string;
  description: string;
}

/** One tool line of the overview. */
export interface ToolLine {
  name: string;
  title: string;
  read_only: boolean;
  open_world: boolean;
  sensitivity: string;
  capabilities: string[];
  summary: string;
}

/** A tool the reference offers that this build does not. */
export interface UnavailableTool {
  name: string;
  category: string;
  reason: string;
}

/** A suggested sequence of calls. */
export interface Workflow {
  name: string;
  goal: string;
  steps: string[];
}

/** The overview. */
export interface Capabilities {
  tool_count: number;
  categories: { category: string; description: string; tool_count: number; tools: ToolLine[] }[];
  not_available: UnavailableTool[];
  resource_count: number;
  template_count: number;
  prompts: string[];
  workflows: Workflow[];
  conventions: string[];
}

/** Why the live collectors are missing. */
export const LIVE_COLLECTORS_REASON =
  "Not available in this build: it reads exported inventory and scanner files instead of " +
  "calling cloud APIs. Collect with the cloud tooling of your choice, then load the files " +
  "with load_dataset.";

/** The reference's live collectors, absent here. */
export const LIVE_COLLECTORS: readonly UnavailableTool[] = [
  "map_inventory",
  "collect_assets",
  "run_scanners",
  "run_pipeline",
].map((name) => ({ name, category: "live", reason: LIVE_COLLECTORS_REASON }));

/** Suggested workflows. */
export const WORKFLOWS: readonly Workflow[] = [
  {
    name: "orient",
    goal: "Learn what is loaded and what it holds.",
    steps: ["workspace_status", "dataset_summary", "list_asset_types", "list_accounts"],
  },
  {
    name: "prioritise",
    goal: "Find what to fix first.",
    steps: ["top_risks", "list_findings", "internet_exposure", "attack_paths"],
  },
  {
    name: "drill_down",
    goal: "Understand one asset.",
    steps: ["find_assets", "get_asset", "get_asset_metadata", "neighbors", "blast_radius"],
  },
  {
    name: "compliance",
    goal: "Check a framework's posture.",
    steps: ["compliance_summary", "list_controls", "control_status", "compliance_gaps"],
  },
  {
    name: "change_tracking",
    goal: "See what changed between two exports.",
    steps: ["load_dataset", "snapshot_dataset", "diff_datasets"],
  },
];

/** Conventions every tool follows. */
export const CONVENTIONS: readonly string[] = [
  "Empty dataset means the active dataset; name another with the dataset argument.",
  "Asset references accept an internal id, an ARN or cloud resource id, or a name held by one asset; misses fail with suggestions.",
  "Lists are paginated: limit (1 to 500) and the next_cursor of the previous page; a cursor is refused as stale once the dataset or the filters change.",
  "Enumeration arguments (severities, asset types, providers, sorts) are read case-insensitively; a miss lists the accepted values.",
  "Identifiers may come back pseudonymised under some policies: pass them back unchanged.",
  "Prefer the narrow query tools (count_assets, find_assets with filters) over paging everything.",
];

/** The workflows with their steps narrowed to the tools offered; workflows left empty are dropped. */
export function workflowsFor(offered: ReadonlySet<string>): Workflow[] {
  return WORKFLOWS.map((w) => ({ ...w, steps: w.steps.filter((s) => offered.has(s)) }))
    .filter((w) => w.steps.length > 0);
}

/** A description cut to its first sentence, at most {@linkcode SUMMARY_CHARS} characters. */
export function summarize(description: string): string {
  const text = description.trim().replace(/\s+/g, " ");
  const end = text.search(/[.!?](\s|$)/);
  const sentence = end < 0 ? text : text.slice(0, end + 1);
  if (sentence.length <= SUMMARY_CHARS) return sentence;
  return sentence.slice(0, SUMMARY_CHARS - 1).trimEnd() + "…";
}

/**
 * The overview of `tools` (already filtered to what the caller can see),
 * grouped by `categories` in their order (categories with no visible tool
 * are left out; tools of an undeclared category come last under their own).
 */
export function capabilities(
  tools: readonly ToolDescription[],
  context: {
    categories: readonly CategoryDescription[];
    resourceCount: number;
    templateCount: number;
    prompts: readonly string[];
  },
): Capabilities {
  const order = context.categories.map((c) => c.name);
  for (const tool of tools) if (!order.includes(tool.category)) order.push(tool.category);
  const categories = order.map((name) => {
    const lines = tools.filter((t) => t.category === name).map((t): ToolLine => ({
      name: t.name,
      title: t.title,
      read_only: t.read_only,
      open_world: t.open_world,
      sensitivity: t.sensitivity,
      capabilities: [...t.capabilities],
      summary: summarize(t.description),
    }));
    return {
      category: name,
      description: context.categories.find((c) => c.name === name)?.description ?? "",
      tool_count: lines.length,
      tools: lines,
    };
  }).filter((c) => c.tool_count > 0);
  return {
    tool_count: tools.length,
    categories,
    not_available: LIVE_COLLECTORS.map((t) => ({ ...t })),
    resource_count: context.resourceCount,
    template_count: context.templateCount,
    prompts: [...context.prompts],
    workflows: workflowsFor(new Set(tools.map((t) => t.name))),
    conventions: [...CONVENTIONS],
  };
}
