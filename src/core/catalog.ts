/**
 * The tool catalog: every tool declares its effects once, and its MCP
 * annotations, its title and whether `--read-only` keeps it all derive from
 * that declaration.
 *
 * @module
 */

import type { z } from "zod";
import type { EvidenceDraft, EvidenceRecord } from "./evidence.ts";
import type { Sensitivity } from "./policy.ts";

/** What running a tool may do beyond computing an answer. */
export interface ToolEffects {
  /** Changes the analysed target (renames, comments). */
  mutatesTarget?: boolean;
  /** Changes session state (records Evidence, opens a target). */
  mutatesSession?: boolean;
  /** Writes files on the host. */
  writesFilesystem?: boolean;
  /** Starts a process on the host. */
  launchesProcess?: boolean;
  /** Talks to the network. */
  accessesNetwork?: boolean;
  /** May throw away data the session held. */
  mayDiscardData?: boolean;
  /** Discloses values a policy withholds (the pseudonym reveal); policies restrict it. */
  reveals?: boolean;
  /** Repeating the call with the same input has no further effect. @default true */
  idempotent?: boolean;
}

/** MCP tool annotations. */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** `open_binary` → `Open Binary`. */
export function titleFor(name: string): string {
  return name.split("_").map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(" ");
}

/**
 * The effects of a tool whose only change is the Evidence it records in the
 * session: spread into its definition.
 */
export const RECORDS_EVIDENCE: { effects: ToolEffects; producesEvidence: true } = Object.freeze({
  effects: Object.freeze({ mutatesSession: true }),
  producesEvidence: true,
});

/** The effects of a tool that changes session state and records no Evidence: spread into its definition. */
export const CHANGES_SESSION: { effects: ToolEffects; producesEvidence: false } = Object.freeze({
  effects: Object.freeze({ mutatesSession: true }),
  producesEvidence: false,
});

/** The effects of a tool that only reads (no Evidence, no change): spread into its definition. */
export const READS_ONLY: { effects: ToolEffects; producesEvidence: false } = Object.freeze({
  effects: Object.freeze({}),
  producesEvidence: false,
});

/** Derives annotations from effects, and from nothing else. */
export function annotationsFor(name: string, effects: ToolEffects): ToolAnnotations {
  const anyEffect = Boolean(
    effects.mutatesTarget || effects.mutatesSession || effects.writesFilesystem ||
      effects.launchesProcess || effects.accessesNetwork || effects.mayDiscardData,
  );
  return {
    title: titleFor(name),
    readOnlyHint: !anyEffect,
    destructiveHint: Boolean(effects.mayDiscardData),
    idempotentHint: effects.idempotent ?? true,
    openWorldHint: Boolean(effects.launchesProcess || effects.accessesNetwork),
  };
}

/**
 * Whether a tool stays available under `--read-only`: it may record Evidence
 * in the session, but must not touch the target, the filesystem, processes or
 * the network.
 */
export function allowedWhenReadOnly(effects: ToolEffects): boolean {
  return !(effects.mutatesTarget || effects.writesFilesystem || effects.launchesProcess ||
    effects.accessesNetwork);
}

/** Progress and cancellation for one call. */
export interface ToolContext {
  /** Aborted when the client cancels. */
  signal: AbortSignal;
  /** Sends a progress notification when the client asked for progress; otherwise a no-op. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /**
   * The call's inputs as Evidence records them: every declared input key in
   * schema order, with defaults applied and null for keys left out.
   */
  parameters: Record<string, unknown>;
  /**
   * Asks the human at the client to fill in a form (MCP form elicitation).
   * Present only when the client declared the `elicitation` (form) capability.
   */
  elicit?(message: string, requestedSchema: ElicitationSchema): Promise<ElicitationAnswer>;
  /**
   * Asks the client's model for a completion (MCP sampling), the prompt as
   * one user message. Present only when the client declared `sampling`.
   */
  sample?(prompt: string, maxTokens: number): Promise<SampledText>;
  /**
   * Closes the SSE stream this call answers on, so the client reconnects and
   * polls for the result (Streamable HTTP with resumability only).
   */
  closeStream?(): void;
}

/** The client model's answer to {@linkcode ToolContext.sample}. */
export interface SampledText {
  /** The text answered (empty when the answer was not text). */
  text: string;
  /** The model that answered, as the client names it. */
  model: string;
}

/** A content block a tool returns beside its structured result (MCP tool content). */
export type ToolContentBlock =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; data: string; mimeType: string }
  | {
    type: "resource";
    resource: { uri: string; mimeType: string; text: string } | {
      uri: string;
      mimeType: string;
      blob: string;
    };
  };

/** A flat form schema for {@linkcode ToolContext.elicit} (MCP restricts forms to primitive fields). */
export interface ElicitationSchema {
  type: "object";
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
}

/** The human's answer to an elicitation. */
export interface ElicitationAnswer {
  /** `accept` with content, or `decline` / `cancel` without. */
  action: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

/** A resource link to return beside a result. */
export interface ResourceLinkSpec {
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
}

/** What a tool produced; `T` is the type of its result. */
export type ToolOutcome<T = unknown> =
  | {
    kind: "evidence";
    draft: EvidenceDraft | (Omit<EvidenceDraft, "predicate_type"> & { predicate_type?: string });
  }
  | {
    kind: "result";
    result: T;
    links?: ResourceLinkSpec[];
    /** More content blocks after the result's JSON text (images, audio, embedded resources). */
    content?: ToolContentBlock[];
  }
  /**
   * The tool retained `evidence` in the ledger itself, atomically with other
   * session state (a registry write): the server reports `result` with that
   * record's id, and the links beside it.
   */
  | { kind: "recorded"; evidence: EvidenceRecord; result: T; links?: ResourceLinkSpec[] };

/** One tool. `I` is its input schema, `R` the schema of its result. */
export interface ToolDefinition<
  I extends z.ZodObject = z.ZodObject,
  R extends z.ZodType = z.ZodType,
> {
  name: string;
  /** When to use it and its limits. */
  description: string;
  /**
   * The named toolset it belongs to (`--toolsets` selects by these); every
   * toolset is declared by the tool's workbench.
   */
  toolset?: string;
  /** A policy category; the toolset when left out. */
  category?: string;
  /** How sensitive its output is. @default "internal" */
  sensitivity?: Sensitivity;
  /** A zod object schema; every field `.describe()`d. */
  input: I;
  /**
   * The JSON Schema `tools/list` shows instead of the one derived from
   * `input` (kept verbatim, `$schema` and `$defs` included); `input` still
   * validates every call.
   */
  inputJsonSchema?: Record<string, unknown>;
  /** The schema of `result` in the structured output. */
  result: R;
  /** Declared once; everything else derives from it. */
  effects: ToolEffects;
  /** Whether a success is recorded as Evidence. */
  producesEvidence: boolean;
  run(args: z.output<I>, context: ToolContext): Promise<ToolOutcome<z.output<R>>>;
}

/**
 * Declares a tool, keeping its input type through to `run` (no casts of the
 * arguments) and checking the result against its schema's type.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { defineTool } from "./catalog.ts";
 * export const echo = defineTool({
 *   name: "echo",
 *   toolset: "demo",
 *   description: "Echo a word back.",
 *   input: z.strictObject({ word: z.string().describe("The word.") }),
 *   result: z.object({ word: z.string() }),
 *   effects: {},
 *   producesEvidence: false,
 *   run: (args) => Promise.resolve({ kind: "result", result: { word: args.word } }),
 * });
 * ```
 */
export function defineTool<I extends z.ZodObject, R extends z.ZodType>(
  tool: ToolDefinition<I, R> & { toolset: string },
): ToolDefinition {
  return tool as unknown as ToolDefinition;
}

/** The registered tools, in registration order. */
export class ToolCatalog {
  #tools = new Map<string, ToolDefinition>();

  /** Registers a tool; names are unique snake_case. */
  add(tool: ToolDefinition): void {
    if (!/^[a-z][a-z0-9_]*$/.test(tool.name)) {
      throw new TypeError(`Tool name ${JSON.stringify(tool.name)} is not snake_case`);
    }
    if (this.#tools.has(tool.name)) throw new RangeError(`Tool ${tool.name} is already registered`);
    this.#tools.set(tool.name, tool);
  }

  /** A tool by name. */
  get(name: string): ToolDefinition | undefined {
    return this.#tools.get(name);
  }

  /** Whether a tool is registered. */
  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** All tools in registration order. */
  list(): ToolDefinition[] {
    return [...this.#tools.values()];
  }
}
