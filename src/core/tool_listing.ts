/**
 * How `tools/list` shows a tool, and the generated tool catalogs built from
 * it: each built-in workbench commits the listing of its tools (with what
 * the policy gate and `--toolsets` decide by), so the server answers a
 * client's first `tools/list` before the workbench's implementation has
 * loaded. `deno task docs` regenerates the catalogs; a test fails when one is
 * stale.
 *
 * @module
 */

import { z } from "zod";
import { freezeCanonical } from "./canonical_json.ts";
import { annotationsFor, type ToolAnnotations, type ToolDefinition } from "./catalog.ts";
import type { ToolEffects } from "./catalog.ts";
import type { Sensitivity } from "./policy.ts";

/** One tool as `tools/list` shows it (the MCP `Tool` object), as plain JSON. */
export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations: ToolAnnotations;
}

/**
 * One tool of a generated catalog: its listing, and the facts `--toolsets`
 * and the policy gate decide its visibility by.
 */
export interface CatalogEntry {
  /** The toolset it belongs to. */
  toolset: string;
  /** Its policy category, when it declares one (else its toolset is). */
  category?: string;
  /** How sensitive its output is, when it declares it (else `internal`). */
  sensitivity?: Sensitivity;
  /** Its declared effects. */
  effects: ToolEffects;
  /** What `tools/list` shows. */
  listed: ListedTool;
}

const ERROR_SCHEMA = {
  type: "object",
  properties: {
    code: { type: "string" },
    category: { type: "string" },
    message: { type: "string" },
    retryable: { type: "boolean" },
    remediation: {
      type: "object",
      properties: { action: { type: "string" }, restart_required: { type: "boolean" } },
      required: ["action", "restart_required"],
    },
    details: { type: "object" },
  },
  required: ["code", "category", "message", "retryable", "remediation"],
};

const described = new WeakMap<ToolDefinition, ListedTool>();

/**
 * The tool as `tools/list` shows it: its input and result schemas converted
 * to JSON Schema (draft 7), its title and annotations derived from its
 * effects. Converted once per definition; the answer is frozen, so every
 * listing may share it.
 */
export function describeTool(tool: ToolDefinition): ListedTool {
  const known = described.get(tool);
  if (known) return known;
  const listed = convert(tool);
  // Plain JSON, frozen deeply (and known canonical, so Evidence or docs may write it whole).
  freezeCanonical(listed);
  described.set(tool, listed);
  return listed;
}

/** The listing without its output schema (a policy that transforms results withholds it). */
export function withoutOutputSchema(listed: ListedTool): ListedTool {
  const { outputSchema: _withheld, ...rest } = listed;
  return rest;
}

/** A tool's catalog entry (its toolset must be known: the workbench's name when it names none). */
export function catalogEntry(tool: ToolDefinition, toolset: string): CatalogEntry {
  return {
    toolset,
    ...(tool.category !== undefined ? { category: tool.category } : {}),
    ...(tool.sensitivity !== undefined ? { sensitivity: tool.sensitivity } : {}),
    effects: tool.effects,
    listed: describeTool(tool),
  };
}

/** Thrown when a generated catalog is not a list of catalog entries. */
export class ToolCatalogError extends Error {
  override name = "ToolCatalogError";
}

/**
 * Checks that a generated catalog (its parsed JSON) is a list of entries
 * with the fields the server relies on, and answers it typed. The entries
 * are shared by every connection: read them, never change them.
 */
export function checkToolCatalog(entries: unknown): readonly CatalogEntry[] {
  if (!Array.isArray(entries)) {
    throw new ToolCatalogError("A tool catalog is a JSON array of entries; this one is not.");
  }
  for (const [index, entry] of entries.entries()) {
    const e = entry as Partial<CatalogEntry> | null;
    if (
      typeof e !== "object" || e === null || typeof e.toolset !== "string" ||
      typeof e.effects !== "object" || typeof e.listed?.name !== "string"
    ) {
      throw new ToolCatalogError(
        `Entry ${index} of a tool catalog lacks its toolset, effects or listed tool name; regenerate it with deno task docs.`,
      );
    }
  }
  return entries as CatalogEntry[];
}

/** The JSON text of a catalog, as the generator commits it (one line, then a newline). */
export function toolCatalogText(entries: readonly CatalogEntry[]): string {
  return `${JSON.stringify(entries)}\n`;
}

/**
 * A workbench module's `toolCatalog` over the import of its generated
 * catalog (a JSON module): imported and checked on the first call, then
 * shared by every connection. A failed import is retried on the next call.
 */
export function lazyToolCatalog(
  load: () => Promise<{ default: unknown }>,
): () => Promise<readonly CatalogEntry[]> {
  let entries: Promise<readonly CatalogEntry[]> | undefined;
  return () => {
    entries ??= load().then((module) => checkToolCatalog(module.default));
    entries.catch(() => (entries = undefined));
    return entries;
  };
}

function convert(tool: ToolDefinition): ListedTool {
  const input = tool.inputJsonSchema
    ? structuredClone(tool.inputJsonSchema)
    : z.toJSONSchema(tool.input, { target: "draft-7", io: "input" }) as Record<string, unknown>;
  if (!tool.inputJsonSchema) delete input.$schema;
  const result = z.toJSONSchema(tool.result, { target: "draft-7", io: "output" }) as Record<
    string,
    unknown
  >;
  delete result.$schema;
  const success = tool.producesEvidence
    ? {
      properties: {
        result,
        evidence_id: { type: "string", pattern: "^ev_[0-9a-f]{64}$" },
        evidence_uri: { type: "string" },
      },
      required: ["result", "evidence_id", "evidence_uri"],
    }
    : { properties: { result }, required: ["result"] };
  const annotations = annotationsFor(tool.name, tool.effects);
  return {
    name: tool.name,
    title: annotations.title,
    description: tool.description,
    inputSchema: input,
    outputSchema: {
      type: "object",
      anyOf: [
        { type: "object", ...success },
        {
          type: "object",
          properties: { error: structuredClone(ERROR_SCHEMA) },
          required: ["error"],
        },
      ],
    },
    annotations,
  };
}
