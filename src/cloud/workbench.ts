/**
 * The cloud workbench: named datasets of cloud estates (assets, edges,
 * findings, compliance results), queried through tools, `cloudg://`
 * resources, guided prompts and session-aware completion.
 *
 * @module
 */

import { isAbsolute, resolve } from "node:path";
import type { ToolDefinition } from "../core/catalog.ts";
import type { PermissionNeed } from "../core/permissions.ts";
import { isWithin } from "../core/roots.ts";
import type {
  CompletionFamily,
  Workbench,
  WorkbenchModule,
  WorkbenchServices,
} from "../core/workbench.ts";
import { cloudCompleters } from "./completers.ts";
import { cloudContext } from "./context.ts";
import { loadDemo } from "./demo/load_demo.ts";
import { closeOntologies } from "./ontology/registry.ts";
import { cloudPrompts } from "./prompts/prompts.ts";
import { cloudResources, cloudTemplates } from "./resources/resources.ts";
import {
  describeLimit,
  LOAD_MEMORY_BOUND,
  LOAD_PEAK_FACTOR,
  MAX_INPUT_BYTES,
  parseByteSize,
} from "./importers/read.ts";
import { COMPLIANCE_TOOLSET, complianceTools } from "./toolsets/compliance.ts";
import { FINDINGS_TOOLSET, findingsTools } from "./toolsets/findings.ts";
import { ingestTools } from "./toolsets/ingest.ts";
import { GRAPH_TOOLSET, graphTools } from "./toolsets/graph.ts";
import { INVENTORY_TOOLSET, inventoryTools } from "./toolsets/inventory.ts";
import { EXPORT_TOOLSET, exportTools } from "./toolsets/export.ts";
import { META_TOOLSET, metaTools } from "./toolsets/meta.ts";
import { ONTOLOGY_TOOLSET, ontologyTools } from "./toolsets/ontology.ts";
import { WORKSPACE_TOOLSET, workspaceTools } from "./toolsets/workspace.ts";
import { parseDatasetSpec } from "./workspace/naming.ts";
import { Workspace } from "./workspace/workspace.ts";
import { knownAssetName } from "./workspace/known_names.ts";

/** A dataset the operator names on the command line. */
export interface PreloadedDataset {
  /** Its name; derived from the path when left out. */
  name?: string;
  /** Its file or directory. */
  path: string;
}

/** How the cloud workbench is configured. */
export interface CloudSettings {
  /** Datasets loaded into every session's workspace at start. @default [] */
  datasets?: PreloadedDataset[];
  /** Load the demo estate (`sample`, active, and `after`). @default false */
  demo?: boolean;
  /**
   * The directory export tools write under (`--output-dir`); it must lie
   * inside what `--allow-write` grants. Null: export tools refuse to write.
   * @default null
   */
  outputDir?: string | null;
  /**
   * Largest input file `load_dataset`, `ingest_reports` and `--dataset` read,
   * in bytes (`--max-dataset-bytes`); larger files are refused before any
   * byte is read. A load takes up to about {@linkcode LOAD_PEAK_FACTOR}× the
   * file's size in memory. @default MAX_INPUT_BYTES (256 MiB)
   */
  maxDatasetBytes?: number;
}

/** The cloud toolsets, in listing order. */
export const CLOUD_TOOLSETS = [
  WORKSPACE_TOOLSET,
  INVENTORY_TOOLSET,
  GRAPH_TOOLSET,
  FINDINGS_TOOLSET,
  COMPLIANCE_TOOLSET,
  ONTOLOGY_TOOLSET,
  EXPORT_TOOLSET,
  META_TOOLSET,
] as const;

const DEFAULT_LIMIT = describeLimit(MAX_INPUT_BYTES);
const MEMORY_BOUND = describeLimit(LOAD_MEMORY_BOUND);

const CLOUD_HELP = `Cloud estates (the cloud workbench):
  --dataset [NAME=]PATH  load a dataset at start (repeatable; grant --allow-read=PATH): cloudg's
                         inventory and report files, generic {assets, edges, findings} JSON, Terraform
                         state and plan JSON, AWS API dumps, IAM authorization details, Prowler
                         (ASFF, OCSF), Checkov, Trivy or ScoutSuite output; the kind is detected
  --demo                 load the demo estate: datasets sample (active) and after (no WAF web ACL)
  --output-dir DIR       write exports (reports, Terraform, ontology) only under DIR; needs
                         --allow-write=DIR and --allow-file-writes
  --max-dataset-bytes N  refuse input files larger than N bytes (K, M, G suffixes; default ${DEFAULT_LIMIT});
                         a load takes up to about ${LOAD_PEAK_FACTOR}× the file's size in memory, so the
                         default keeps one under ${MEMORY_BOUND}
`;

/**
 * The cloud workbench configured with `settings`.
 *
 * @example
 * ```ts
 * import { cloudWorkbenchWith } from "./workbench.ts";
 * const cloud = cloudWorkbenchWith({ demo: true });
 * ```
 */
export function cloudWorkbenchWith(settings: CloudSettings = {}): WorkbenchModule {
  const datasets = (settings.datasets ?? []).map((d) => ({
    ...d,
    path: isAbsolute(d.path) ? d.path : resolve(d.path),
  }));
  const outputDir = settings.outputDir ? resolve(settings.outputDir) : null;
  const maxBytes = settings.maxDatasetBytes ?? MAX_INPUT_BYTES;
  if (!Number.isInteger(maxBytes) || maxBytes < 1) {
    throw new RangeError(
      `maxDatasetBytes must be a positive whole number of bytes, got ${maxBytes}.`,
    );
  }
  return {
    name: "cloud",
    instructions:
      "For cloud estates, start with workspace_status (or read cloudg://workspace), load data with load_dataset, then prefer the narrow query tools; list results are paginated with next_cursor.",
    toolsets: CLOUD_TOOLSETS,
    subjectKinds: ["dataset", "asset", "finding"],
    evidencePredicate: "casefile.cloud/v1",
    cli: {
      options: {
        dataset: { type: "string", multiple: true },
        demo: { type: "boolean" },
        "output-dir": { type: "string" },
        "max-dataset-bytes": { type: "string" },
      },
      help: CLOUD_HELP,
      configure: (values) =>
        cloudWorkbenchWith({
          datasets: ((values.dataset as string[] | undefined) ?? []).map(parseDatasetSpec),
          demo: values.demo === true,
          outputDir: typeof values["output-dir"] === "string" ? values["output-dir"] : null,
          ...(typeof values["max-dataset-bytes"] === "string"
            ? { maxDatasetBytes: parseByteSize(values["max-dataset-bytes"]) }
            : {}),
        }),
    },
    permissionNeeds: (): PermissionNeed[] => [
      ...datasets.map((d): PermissionNeed => ({
        name: "read",
        target: d.path,
        purpose: `load dataset ${d.path}`,
      })),
      ...(outputDir === null ? [] : [{
        name: "write" as const,
        target: outputDir,
        purpose: `write exports under ${outputDir}`,
      }]),
    ],
    create: (services) =>
      createCloudWorkbench(services, datasets, {
        demo: settings.demo ?? false,
        outputDir,
        maxBytes,
      }),
  };
}

/** The cloud workbench with an empty workspace. */
export const cloudWorkbench: WorkbenchModule = cloudWorkbenchWith();

function createCloudWorkbench(
  services: WorkbenchServices,
  datasets: readonly PreloadedDataset[],
  options: { demo: boolean; outputDir: string | null; maxBytes: number },
): Workbench {
  const workspace = new Workspace({
    fence: async (path) => (await services.fence.check(path)).realPath,
    maxBytes: options.maxBytes,
  });
  workspace.onChange((event) => {
    if (event.type === "list_changed") services.notifyResourceListChanged();
    else services.notifyResourceUpdated(event.uri);
  });
  if (options.demo) loadDemo(workspace);
  const preloaded = preload(workspace, datasets, services, options.maxBytes);
  const ctx = cloudContext(workspace, services, preloaded, options.outputDir);
  const completers = cloudCompleters(workspace);
  const families: Record<string, CompletionFamily> = Object.fromEntries(
    Object.entries(completers).map(([name, spec]) => [name, {
      source: (context) => spec.source({ arguments: context.arguments }),
      options: {
        match: spec.match,
        order: spec.order,
        normalize: spec.normalize,
        upperCaseInput: spec.upperCaseInput,
      },
    }]),
  );
  const tools: ToolDefinition[] = [
    ...workspaceTools(ctx),
    ...inventoryTools(ctx),
    ...graphTools(ctx),
    ...findingsTools(ctx),
    ...ingestTools(ctx),
    ...complianceTools(ctx),
    ...ontologyTools(ctx),
    ...exportTools(ctx),
  ];
  tools.push(...metaTools(ctx, { tools: () => tools, categories: CLOUD_TOOLSETS }));
  return {
    name: "cloud",
    tools,
    prompts: cloudPrompts(ctx),
    completionFamilies: families,
    resources: cloudResources(ctx),
    resourceTemplates: cloudTemplates(ctx, families),
    knownNames: (text) => knownAssetName(workspace, text),
    // Stops the ontology workers this connection started.
    close: () => Promise.resolve(closeOntologies(workspace)),
  };
}

/**
 * Loads the operator's datasets, each through a fence that admits exactly
 * the path the operator named; a failure is logged and leaves the others.
 */
async function preload(
  workspace: Workspace,
  datasets: readonly PreloadedDataset[],
  services: WorkbenchServices,
  maxBytes: number,
): Promise<void> {
  for (const dataset of datasets) {
    const named = await Deno.realPath(dataset.path).catch(() => null);
    const loader = new Workspace({
      fence: async (path) => {
        const real = await Deno.realPath(path);
        if (named === null || !isWithin(real, named)) {
          throw new Error(`${path} is outside the dataset path the operator named`);
        }
        return real;
      },
      maxBytes,
    });
    try {
      const outcome = await loader.load(dataset.path, dataset.name ? { name: dataset.name } : {});
      workspace.add(outcome.dataset.name, outcome.dataset.records, {
        kind: outcome.dataset.kind,
        source: outcome.dataset.source,
        metadata: outcome.dataset.metadata,
        replace: true,
      });
    } catch (error) {
      services.log(
        "error",
        `--dataset ${dataset.path} was not loaded: ${
          error instanceof Error ? error.message : error
        }`,
      );
    }
  }
}
