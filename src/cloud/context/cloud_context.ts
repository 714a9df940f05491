/**
 * What every cloud tool, resource and prompt of one connection shares: the
 * workspace, the core services, and the translation of cloud domain errors
 * into the core error contract. Handlers translate; domain code knows no MCP.
 *
 * @module
 */

import { z } from "zod";
import { ToolFailure } from "../../core/errors.ts";
import type { WorkbenchServices } from "../../core/workbench.ts";
import { CloudError } from "../model/errors.ts";
import type { Workspace } from "../workspace/workspace.ts";
import type { Dataset } from "../workspace/dataset.ts";

/** The per-connection state of the cloud workbench. */
export interface CloudContext {
  /** The named datasets and the active one. */
  readonly workspace: Workspace;
  /** The core's services (fence, gate, ledger, notifications). */
  readonly services: WorkbenchServices;
  /** Datasets the operator named on the command line, loading (resolves when all are in). */
  readonly preloaded: Promise<void>;
  /** The absolute directory exports are written under (`--output-dir`); null when none is configured. */
  readonly outputDir: string | null;
  /** The dataset a tool names (empty or absent: the active one). Throws a ToolFailure. */
  dataset(name?: string | null): Dataset;
}

/** The `dataset` argument every dataset-reading tool takes. */
export const datasetArgument = z.string().max(64).default("").describe(
  "The dataset to read (a name from list_datasets); empty means the active dataset.",
);

/** The `ref` argument of the graph tools that start from one asset. */
export const assetRefArgument = z.string().min(1).max(2048).describe(
  "The asset: id, ARN, cloud resource id or unique name.",
);

/** `limit` and `cursor` of list tools. */
export const pageArguments = {
  limit: z.number().int().min(1).max(500).default(50).describe(
    "Items per page (1 to 500).",
  ),
  cursor: z.string().max(64).optional().describe(
    "The next_cursor of the previous page; leave out for the first page.",
  ),
};

/** `limit`, `cursor` and `dataset`: the arguments every paginated dataset list takes, in that order. */
export const datasetPageArguments = { ...pageArguments, dataset: datasetArgument };

/** The envelope of a paginated list. */
export const pageSchema = <T extends z.ZodType>(item: T) =>
  z.object({
    total: z.number().int().describe("Items matching, over every page."),
    offset: z.number().int(),
    returned: z.number().int(),
    next_cursor: z.string().nullable().describe(
      "Pass as cursor for the next page; null on the last.",
    ),
    truncated: z.boolean(),
    items: z.array(item),
  });

/** A cloud domain error (or anything else) as a tool failure. */
export function asToolFailure(error: unknown): unknown {
  if (!(error instanceof CloudError)) return error;
  return new ToolFailure(
    error.kind === "not_found" ? "not_found" : "invalid_request",
    error.message,
    {
      action: error.kind === "not_found"
        ? "Check the name or id (completion/complete suggests the ones that exist), then call again."
        : "Correct the argument and call again.",
      details: error.data,
    },
  );
}

/**
 * Runs a handler, translating what it throws with `toFailure` (by default
 * {@link asToolFailure}: cloud domain errors into tool failures).
 */
export async function translated<T>(
  run: () => T | Promise<T>,
  toFailure: (error: unknown) => unknown = asToolFailure,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toFailure(error);
  }
}

/** Options of {@link withDataset}. */
export interface WithDatasetOptions {
  /** How a thrown error becomes a tool failure (default {@link asToolFailure}). */
  toFailure?: (error: unknown) => unknown;
}

/**
 * Runs a query on one dataset: waits for the datasets loaded at start-up,
 * picks the one named (empty for the active one), and translates cloud
 * domain errors into tool failures.
 */
export async function withDataset<T>(
  ctx: CloudContext,
  name: string,
  run: (dataset: Dataset) => T | Promise<T>,
  options: WithDatasetOptions = {},
): Promise<T> {
  return await translated(async () => {
    await ctx.preloaded;
    return await run(ctx.dataset(name));
  }, options.toFailure);
}

/** Builds the context of one connection. */
export function cloudContext(
  workspace: Workspace,
  services: WorkbenchServices,
  preloaded: Promise<void>,
  outputDir: string | null = null,
): CloudContext {
  return {
    workspace,
    services,
    preloaded,
    outputDir,
    dataset: (name) => {
      try {
        return workspace.dataset(name ?? "");
      } catch (error) {
        throw asToolFailure(error);
      }
    },
  };
}
