/**
 * The cloud workbench: named datasets of cloud estates (assets, edges,
 * findings, compliance results), queried through tools, `cloudg://`
 * resources, guided prompts and session-aware completion.
 *
 * @module
 */

import type { ToolDefinition } from "../core/catalog.ts";
import { isWithin } from "../core/roots.ts";
import type {
  CompletionFamily,
  Workbench,
  WorkbenchModule,
  WorkbenchServices,
} from "../core/workbench.ts";
import {
  CLOUD_TOOLSETS,
  cloudModuleWith,
  type CloudSettings,
  type PreloadedDataset,
  type ResolvedCloudSettings,
} from "./descriptor.ts";
import { cloudCompleters } from "./completers.ts";
import { cloudContext } from "./context/cloud_context.ts";
import { loadDemo } from "./demo/load_demo.ts";
import { closeOntologies } from "./ontology/registry.ts";
import { cloudPrompts } from "./prompts/prompts.ts";
import { cloudResources, cloudTemplates } from "./resources/resources.ts";
import { complianceTools } from "./toolsets/compliance.ts";
import { findingsTools } from "./toolsets/findings.ts";
import { ingestTools } from "./toolsets/ingest.ts";
import { graphTools } from "./toolsets/graph.ts";
import { inventoryTools } from "./toolsets/inventory.ts";
import { exportTools } from "./toolsets/export.ts";
import { metaTools } from "./toolsets/meta.ts";
import { ontologyTools } from "./toolsets/ontology.ts";
import { workspaceTools } from "./toolsets/workspace.ts";
import { LoadError } from "./model/errors.ts";
import { Workspace } from "./workspace/workspace.ts";
import { knownAssetName } from "./workspace/known_names.ts";

export { CLOUD_TOOLSETS } from "./descriptor.ts";
export type { CloudSettings, PreloadedDataset, ResolvedCloudSettings } from "./descriptor.ts";

/**
 * The cloud workbench configured with `settings`, built directly by each
 * connection (the built-in server uses `cloudModuleWith` of `descriptor.ts`,
 * which imports this file on first use instead).
 *
 * @example
 * ```ts
 * import { cloudWorkbenchWith } from "./workbench.ts";
 * const cloud = cloudWorkbenchWith({ demo: true });
 * ```
 */
export function cloudWorkbenchWith(settings: CloudSettings = {}): WorkbenchModule {
  return cloudModuleWith(settings, createCloudWorkbench);
}

/** The cloud workbench with an empty workspace. */
export const cloudWorkbench: WorkbenchModule = cloudWorkbenchWith();

/** Builds the cloud workbench of one connection: its workspace, tools, prompts and resources. */
export function createCloudWorkbench(
  services: WorkbenchServices,
  options: Readonly<ResolvedCloudSettings>,
): Workbench {
  const { datasets } = options;
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
      const outcome = await loader.load(dataset.path, {
        ...(dataset.name ? { name: dataset.name } : {}),
        ...(dataset.kind ? { kind: dataset.kind } : {}),
      });
      workspace.add(outcome.dataset.name, outcome.dataset.records, {
        kind: outcome.dataset.kind,
        source: outcome.dataset.source,
        metadata: outcome.dataset.metadata,
        replace: true,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // Detection found no kind (the loader's error lists the valid ones and advises load_dataset's
      // `kind`): on the command line the kind is a prefix.
      const undetected = error instanceof LoadError && error.data.valid !== undefined &&
        !dataset.kind;
      const hint = undetected ? ` (here: --dataset KIND:${dataset.path})` : "";
      services.log("error", `--dataset ${dataset.path} was not loaded: ${message}${hint}`);
    }
  }
}
