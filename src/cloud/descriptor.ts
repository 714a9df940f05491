/**
 * The cloud workbench's descriptor: what the server and the command line
 * need before any connection is served (name, toolsets, flags and their
 * help, the instructions paragraph, permission needs), kept apart from its
 * implementation (`workbench.ts`), which is imported when a connection first
 * builds the workbench. Starting the server therefore loads none of the
 * importers, graph or ontology code, and the demo estate is built then too.
 *
 * @module
 */

import { isAbsolute, resolve } from "node:path";
import type { PermissionNeed } from "../core/permissions.ts";
import type { Workbench, WorkbenchModule, WorkbenchServices } from "../core/workbench.ts";
import {
  describeLimit,
  LOAD_MEMORY_BOUND,
  LOAD_PEAK_FACTOR,
  MAX_INPUT_BYTES,
  parseByteSize,
} from "./importers/input_limits.ts";
import { CLOUD_TOOLSETS } from "./toolsets/info.ts";
import { parseDatasetSpec } from "./workspace/naming.ts";
import { lazyToolCatalog } from "../core/tool_listing.ts";

export { CLOUD_TOOLSETS };

/** A dataset the operator names on the command line. */
export interface PreloadedDataset {
  /** Its name; derived from the path when left out. */
  name?: string;
  /** The importer kind to read it with; detected when left out. */
  kind?: string;
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

/** The cloud settings with every default filled in and every path absolute. */
export interface ResolvedCloudSettings {
  /** Datasets loaded into every session's workspace at start, with absolute paths. */
  datasets: readonly PreloadedDataset[];
  /** Load the demo estate. */
  demo: boolean;
  /** The absolute directory export tools write under, or null. */
  outputDir: string | null;
  /** Largest input file read, in bytes. */
  maxBytes: number;
}

/** Builds the cloud workbench of one connection from resolved settings. */
export type CloudBuilder = (
  services: WorkbenchServices,
  settings: Readonly<ResolvedCloudSettings>,
) => Workbench | Promise<Workbench>;

const DEFAULT_LIMIT = describeLimit(MAX_INPUT_BYTES);
const MEMORY_BOUND = describeLimit(LOAD_MEMORY_BOUND);

const CLOUD_HELP = `Cloud estates (the cloud workbench):
  --dataset [KIND:][NAME=]PATH
                         load a dataset at start (repeatable; grant --allow-read=PATH): cloudg's
                         inventory and report files, generic {assets, edges, findings} JSON, Terraform
                         state and plan JSON, AWS API dumps, IAM authorization details, Prowler
                         (ASFF, OCSF, CSV), Checkov, Trivy or ScoutSuite output; the kind is detected
                         unless KIND names it (load_dataset's kinds, e.g. terraform-plan:plan.json)
  --demo                 load the demo estate: datasets sample (active) and after (no WAF web ACL)
  --output-dir DIR       write exports (reports, Terraform, ontology) only under DIR; needs
                         --allow-write=DIR and --allow-file-writes
  --max-dataset-bytes N  refuse input files larger than N bytes (K, M, G suffixes; default ${DEFAULT_LIMIT});
                         a load takes up to about ${LOAD_PEAK_FACTOR}× the file's size in memory, so the
                         default keeps one under ${MEMORY_BOUND}
`;

/** The generated catalog of the cloud tools (`tool_catalog.json`), imported on first use. */
const toolCatalog = lazyToolCatalog(() =>
  import("./tool_catalog.json", { with: { type: "json" } })
);

/** Imports the implementation, then builds the workbench with it. */
const importedBuilder: CloudBuilder = async (services, settings) => {
  const { createCloudWorkbench } = await import("./workbench.ts");
  return createCloudWorkbench(services, settings);
};

/**
 * The cloud workbench module configured with `settings`. Its `create`
 * imports the implementation on first use, unless `build` builds it directly
 * (as `cloudWorkbenchWith` of `workbench.ts` does); the module its flags
 * configure builds the same way. Throws a RangeError on a bad
 * `maxDatasetBytes`.
 *
 * @example
 * ```ts
 * import { cloudModuleWith } from "./descriptor.ts";
 * const cloud = cloudModuleWith({ demo: true });
 * ```
 */
export function cloudModuleWith(
  settings: CloudSettings = {},
  build: CloudBuilder = importedBuilder,
): WorkbenchModule {
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
  const resolved: ResolvedCloudSettings = {
    datasets,
    demo: settings.demo ?? false,
    outputDir,
    maxBytes,
  };
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
        cloudModuleWith({
          datasets: ((values.dataset as string[] | undefined) ?? []).map(parseDatasetSpec),
          demo: values.demo === true,
          outputDir: typeof values["output-dir"] === "string" ? values["output-dir"] : null,
          ...(typeof values["max-dataset-bytes"] === "string"
            ? { maxDatasetBytes: parseByteSize(values["max-dataset-bytes"]) }
            : {}),
        }, build),
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
    deferred: build === importedBuilder,
    // What the imported implementation lists (its tools do not depend on the settings).
    ...(build === importedBuilder ? { toolCatalog } : {}),
    create: (services) => build(services, resolved),
  };
}
