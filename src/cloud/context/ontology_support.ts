/**
 * What the ontology tools and resources share on the MCP side: the engine of
 * a dataset (from the workspace's ontology registry, built on first use with
 * progress forwarded), the translation of ontology errors into tool
 * failures, and the ontology resource URIs.
 *
 * @module
 */

import type { ToolContext } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import type { ResourceContents } from "../../core/workbench.ts";
import { asToolFailure, type CloudContext, translated, withDataset } from "./cloud_context.ts";
import { URI_SCHEME } from "../model/briefs.ts";
import type { EnsureReport, OntologyEngine } from "../ontology/engine.ts";
import {
  OntologyArgumentError,
  OntologyWorkerError,
  SparqlExecutionError,
  SparqlRefusedError,
  SparqlSyntaxError,
  SparqlTimeoutError,
} from "../ontology/errors.ts";
import { ONTOLOGY_FORMAT_INFO, type OntologyFormat } from "../ontology/formats.ts";
import { ontologyRegistryOf } from "../ontology/registry.ts";
import type { Dataset } from "../workspace/dataset.ts";

/** The static Turtle resource. */
export const ONTOLOGY_TURTLE_URI = `${URI_SCHEME}ontology/turtle`;

/** The link to the Turtle resource that tools return. */
export function turtleLink(): { uri: string; name: string; mimeType: string } {
  return {
    uri: ONTOLOGY_TURTLE_URI,
    name: "Ontology (Turtle)",
    mimeType: ONTOLOGY_FORMAT_INFO.turtle.mimeType,
  };
}

/** An ontology error (or a cloud error, or anything else) as a tool failure. */
export function ontologyFailure(error: unknown): unknown {
  if (error instanceof SparqlSyntaxError) {
    return new ToolFailure("invalid_request", error.message, {
      action: "Fix the query at the position given (line and column are 1-based) and run it again.",
      details: { line: error.line, column: error.column },
    });
  }
  if (error instanceof SparqlRefusedError) {
    return new ToolFailure("invalid_request", error.message, {
      action:
        "Only read-only queries over the dataset's own ontology run here: SELECT, ASK, CONSTRUCT or DESCRIBE without SERVICE, FROM or FROM NAMED.",
      details: { reason: error.reason },
    });
  }
  if (error instanceof SparqlTimeoutError) {
    return new ToolFailure("limit_exceeded", error.message, {
      category: "timeout",
      action: "Narrow the query (more specific patterns, a LIMIT, fewer property paths).",
      details: { timeout_ms: error.timeoutMs },
    });
  }
  if (error instanceof SparqlExecutionError || error instanceof OntologyArgumentError) {
    return new ToolFailure("invalid_request", error.message);
  }
  if (error instanceof OntologyWorkerError) {
    return new ToolFailure("execution_failure", error.message, {
      action: "Check the server's permissions (the message names any flag it needs), then retry.",
      retryable: true,
    });
  }
  return asToolFailure(error);
}

/** Runs a handler, translating ontology and cloud domain errors into tool failures. */
export async function ontologyTranslated<T>(run: () => T | Promise<T>): Promise<T> {
  return await translated(run, ontologyFailure);
}

/**
 * Runs an ontology handler on one dataset: waits for the datasets loaded at
 * start-up, picks the one named (empty for the active one), and translates
 * ontology and cloud domain errors into tool failures.
 */
export async function withOntologyDataset<T>(
  ctx: CloudContext,
  name: string,
  run: (dataset: Dataset) => T | Promise<T>,
): Promise<T> {
  return await withDataset(ctx, name, run, { toFailure: ontologyFailure });
}

/**
 * Options of {@link ontologyOf} that forward build progress to a tool call's
 * progress notifications (a notification that cannot be sent is ignored).
 */
export function progressTo(context: Pick<ToolContext, "progress">): OntologyOfOptions {
  return {
    progress: (done, total, message) =>
      void context.progress(done, total, message).catch(() => undefined),
  };
}

/** Options of {@link ontologyOf}. */
export interface OntologyOfOptions {
  /** Receives build progress (done, total, message), only when a build happens. */
  progress?: (done: number, total: number, message: string) => void;
}

/** A dataset's engine with its store built for the dataset's current version. */
export interface ReadyOntology {
  /** The dataset. */
  dataset: Dataset;
  /** Its engine. */
  engine: OntologyEngine;
  /** What the build check reported (`built_now` true when this call built the store). */
  build: EnsureReport;
}

/** The engine of a dataset, its store built (with progress) when not built yet. */
export async function ontologyOf(
  ctx: CloudContext,
  dataset: Dataset,
  options: OntologyOfOptions = {},
): Promise<ReadyOntology> {
  const engine = ontologyRegistryOf(ctx.workspace).engineFor(dataset);
  const progress = options.progress;
  const build = await engine.ensureView(
    dataset,
    progress
      ? {
        onProgress: (done, total) =>
          progress(done, total, `Building the ontology of ${dataset.name}`),
      }
      : {},
  );
  return { dataset, engine, build };
}

/** Reads one serialisation of the active dataset's ontology as a resource. */
export async function readOntology(
  ctx: CloudContext,
  format: OntologyFormat,
  uri: string,
): Promise<ResourceContents> {
  await ctx.preloaded;
  const { engine } = await ontologyOf(ctx, ctx.dataset(""));
  const dump = await engine.dump(format);
  return { uri, mimeType: dump.mimeType, text: dump.text };
}
