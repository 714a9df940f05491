/**
 * `correlate_static_and_runtime`: a runtime address tied to its static procedure.
 *
 * @module
 */

import { z } from "zod";
import { type JsonValue, sha256Hex } from "../../core/canonical_json.ts";
import {
  defineTool,
  RECORDS_EVIDENCE,
  type ToolDefinition,
  type ToolOutcome,
} from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import { hex } from "../analysis/dossier.ts";
import { DIMENSIONS } from "../capture/compare.ts";
import { mapRuntimeAddress } from "../capture/correlate.ts";
import { evaluateHypotheses, type HypothesisMapping } from "../capture/hypotheses.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { retainedCapture } from "../context/capture_support.ts";
import {
  type InlineEvidence,
  inlineEvidenceSchema,
  verifiedInlineRecord,
} from "../context/inline_evidence.ts";
import { observation, progressOf } from "../context/observation.ts";
import { containingEntry, NEXT_START_ASSUMED, pageOf } from "../context/procedure_query.ts";
import { dossierFrom, procedureLookupOf } from "../providers/provider.ts";
import { correlationResultSchema } from "../schemas/capture_results.ts";
import {
  ADDRESS_PATTERN,
  EVIDENCE_ID_FIELD,
  limitField,
  offsetField,
  unknownRegistryApprovedField,
} from "../schemas/inputs.ts";
import { listPageSchema } from "../schemas/page.ts";
import {
  ANALYZE_FUNCTION,
  CORRELATE_STATIC_AND_RUNTIME,
  RESOLVE_CONTAINING_PROCEDURE,
} from "../tool_names.ts";

/** Maps a runtime address of a capture to the open target's containing procedure and its dossier. */
export function correlateStaticAndRuntimeTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: CORRELATE_STATIC_AND_RUNTIME,
    toolset: "capture",
    description:
      "Tie a runtime address from a retained capture — its crash PC, a backtrace frame (crash_backtrace captures), or an address you pass — to the containing procedure of the open target and that procedure's dossier. The address is mapped through the memory map the capture recorded (exact for PIE and non-PIE); without one, through a load base you give, or taken as static, and then the result is marked inferred. The open target must be the file the capture ran (same SHA-256) or the module the frame lies in.",
    input: z.strictObject({
      capture_evidence_id: EVIDENCE_ID_FIELD.optional().describe(
        "A retained capture_process_scenario Evidence id (this server's form; or REA's mappings).",
      ),
      frame: z.number().int().min(0).max(63).optional().describe(
        "Backtrace frame index; by default the innermost frame inside the open file. Caller frames are looked up at their return address minus 1.",
      ),
      runtime_address: z.string().regex(ADDRESS_PATTERN).optional().describe(
        "A runtime address observed in that run (instead of a frame).",
      ),
      load_base: z.string().regex(ADDRESS_PATTERN).optional().describe(
        "Where the file was loaded, for captures without a memory map.",
      ),
      max_instructions: z.number().int().min(1).max(5000).default(500).describe(
        "Instructions decoded for the dossier (1 to 5000).",
      ),
      include_callers: z.boolean().default(false).describe(
        "Also compute callers (scans the whole document once).",
      ),
      document: z.string().max(4096).optional().describe(
        "A document from list_documents; the current document when left out.",
      ),
      static_comparisons: z.array(inlineEvidenceSchema).min(1).max(100).optional().describe(
        "REA's form: compare_functions or compare_artifacts Evidence records, given whole.",
      ),
      runtime_comparisons: z.array(inlineEvidenceSchema).min(1).max(100).optional().describe(
        "REA's form: compare_process_captures Evidence records, given whole.",
      ),
      mappings: z.array(mappingSchema).min(1).max(500).optional().describe(
        "REA's form: hypotheses tying a static comparison's dimension (or artifact path) to a capture comparison's dimension, each with the change pattern expected; each is evaluated as supported, contradicted or unknown.",
      ),
      offset: offsetField.describe(
        "With mappings: index of the first hypothesis returned.",
      ),
      limit: limitField(100, 100).describe(
        "With mappings: hypotheses per page (1 to 100).",
      ),
      unknown_registry_approved: unknownRegistryApprovedField,
    }),
    result: correlationResultSchema.partial().extend({
      hypotheses: listPageSchema(hypothesisSchema).optional().describe(
        "With mappings (REA's form): each hypothesis evaluated; the capture fields are then absent.",
      ),
    }),
    ...RECORDS_EVIDENCE,
    run: async (args, call) => {
      if (args.mappings !== undefined) return hypothesesOutcome(args);
      const id = args.capture_evidence_id;
      if (id === undefined) {
        throw new ToolFailure(
          "invalid_request",
          "Pass capture_evidence_id (a retained capture), or REA's static_comparisons, runtime_comparisons and mappings.",
        );
      }
      const { capture } = retainedCapture(context.ledger, id, "given");
      // Correlation is containing-procedure resolution plus the dossier, on the bound provider.
      const scope = await context.session.prepared(
        RESOLVE_CONTAINING_PROCEDURE,
        args.document,
        progressOf(call),
      );
      const { target, image } = scope;
      const sameFile = target.sha256 === capture.manifest.executable_sha256;
      const modulePaths = [target.realPath];
      if (sameFile) {
        modulePaths.push(
          capture.manifest.executable_real_path,
          capture.manifest.scenario.executable,
        );
      }
      const crash = capture.crash;
      const frames = crash?.frames ?? [];
      const mappings = crash?.mappings ?? [];
      // A mapped file with the open target's bytes is the open target, wherever it was loaded
      // from (an extracted copy of an archive member, another path to the same library).
      modulePaths.push(...await sameContentPaths(mappings, target, modulePaths));
      if (!sameFile && !mappings.some((m) => m.path !== null && modulePaths.includes(m.path))) {
        throw new ToolFailure(
          "invalid_request",
          `The open target ${target.name} is not the file the capture ran (SHA-256 differs) and no recorded mapping names it.`,
          {
            action:
              `Open ${capture.manifest.executable_real_path} (the captured executable) with open_binary first.`,
          },
        );
      }
      // Containment is the bound provider's own observation.
      const lookup = await procedureLookupOf(scope, RESOLVE_CONTAINING_PROCEDURE);
      const loadBase = args.load_base !== undefined ? { loadBase: BigInt(args.load_base) } : {};
      const frameMappings = frames.map((f) => {
        const at = frameLookupAddress(f);
        const m = mapRuntimeAddress(at, image, { mappings, modulePaths, ...loadBase });
        const found = m.static_address === null
          ? null
          : lookup.table.containing(BigInt(m.static_address));
        return {
          index: f.index,
          pc: f.pc,
          lookup_address: hex(at),
          function: f.function,
          module: m.module ?? f.library,
          static_address: m.static_address,
          procedure: found ? { address: hex(found.fn.address), name: found.fn.name || null } : null,
        };
      });
      let address: bigint;
      let frame: (typeof frames)[number] | null = null;
      if (args.runtime_address !== undefined) {
        address = BigInt(args.runtime_address);
      } else if (args.frame !== undefined) {
        frame = frames[args.frame] ?? null;
        if (!frame) {
          throw new ToolFailure(
            "invalid_request",
            `The capture has ${frames.length} backtrace frame(s); there is no frame ${args.frame}.`,
          );
        }
        address = frameLookupAddress(frame);
      } else {
        // The innermost frame inside the open file's own code (a recorded map says which).
        const inside = frameMappings.find((m) => m.static_address !== null);
        frame = (inside ? frames.find((f) => f.index === inside.index) : undefined) ??
          frames[0] ?? null;
        if (frame) address = frameLookupAddress(frame);
        else if (crash?.pc) address = BigInt(crash.pc);
        else {
          throw new ToolFailure(
            "invalid_request",
            crash
              ? `The capture saw ${crash.signal} but recorded no program counter (${crash.source}).`
              : "The capture recorded no crash, so there is no runtime address to correlate.",
            {
              action:
                "Capture again with crash_backtrace: true (needs gdb), or pass runtime_address (and load_base).",
            },
          );
        }
      }
      const mapping = mapRuntimeAddress(address, image, { mappings, modulePaths, ...loadBase });
      const limitations: string[] = [mapping.explanation];
      if (!sameFile) {
        limitations.push(
          "The capture pinned only its executable's digest: this module's bytes at run time are assumed to equal the open file's.",
        );
      }
      let procedure = null;
      let dossier = null;
      let section = null;
      if (frame && frame.index > 0 && args.runtime_address === undefined) {
        limitations.push(
          `Frame ${frame.index} holds a return address (${frame.pc}), which points after the call: ${
            hex(address)
          } (one less) was looked up.`,
        );
      }
      limitations.push(...lookup.limitations);
      if (mapping.static_address !== null) {
        const at = BigInt(mapping.static_address);
        section = lookup.sectionAt(at);
        const found = lookup.table.containing(at);
        if (found) {
          procedure = containingEntry(found, at);
          if (found.bounded === "next-start") limitations.push(NEXT_START_ASSUMED);
          if (scope.provider.capabilities.includes(ANALYZE_FUNCTION)) {
            try {
              const built = await dossierFrom(scope, {
                operation: CORRELATE_STATIC_AND_RUNTIME,
                procedure: found.fn,
                control: {
                  signal: call.signal,
                  onProgress: (done, total, message) => call.progress(done, total, message),
                },
                includeCallers: args.include_callers,
                limit: 20,
                maxInstructions: args.max_instructions,
                includeAssembly: false,
                assemblyOffset: 0,
                collectionOffset: 0,
              });
              dossier = built.dossier;
              limitations.push(...built.limitations);
            } catch (error) {
              if (!(error instanceof ToolFailure) || error.code !== "capability_unavailable") {
                throw error;
              }
              limitations.push(`No dossier: ${error.message}`);
            }
          } else {
            limitations.push(
              `Provider ${scope.provider.identity.id} does not build dossiers: no dossier.`,
            );
          }
        } else {
          limitations.push("No known procedure contains the static address.");
        }
      }
      const debuggerName = frame?.function ?? null;
      const agrees = debuggerName === null || procedure === null
        ? null
        : [procedure.name, procedure.demangled].includes(debuggerName);
      const confidence = mapping.confidence === "derived" && sameFile ? "derived" : "inferred";
      const outcome = observation(
        CORRELATE_STATIC_AND_RUNTIME,
        scope,
        call.parameters,
        {
          document: scope.document,
          capture_evidence_id: id,
          crash: crash ? { signal: crash.signal, source: crash.source } : null,
          frame,
          mapping,
          static_address: mapping.static_address,
          section,
          procedure,
          debugger_agrees: agrees,
          dossier,
          lookup_address: hex(address),
          frames: frameMappings,
        },
      );
      outcome.draft.confidence = confidence;
      outcome.draft.authority = "analyst-inference";
      outcome.draft.evidence_links = [id];
      outcome.draft.limitations.push(...limitations);
      return outcome;
    },
  });
}

const mappingSchema = z.strictObject({
  static: z.strictObject({
    comparison_evidence_id: EVIDENCE_ID_FIELD,
    selector: z.discriminatedUnion("kind", [
      z.strictObject({ kind: z.literal("artifact"), logical_path: z.string().min(1).max(4096) }),
      z.strictObject({
        kind: z.literal("function"),
        dimension: z.enum([
          "identity",
          "pseudocode",
          "assembly",
          "comments",
          "calls",
          "references",
          "strings_names",
          "cfg",
        ]),
      }),
    ]),
  }),
  runtime: z.strictObject({
    comparison_evidence_id: EVIDENCE_ID_FIELD,
    dimension: z.enum(DIMENSIONS),
  }),
  side_alignment: z.enum(["left_to_left", "left_to_right"]),
  hypothesis: z.strictObject({
    statement: z.string().min(1).max(500),
    expected_pattern: z.enum(["cochanged", "static_only", "runtime_only", "both_unchanged"]),
  }),
});

const sideStatus = z.enum(["changed", "unchanged", "unknown"]);
const changePattern = z.enum(["cochanged", "static_only", "runtime_only", "both_unchanged"]);
const hypothesisSchema = z.object({
  statement: z.string(),
  expected_pattern: changePattern,
  observed_pattern: changePattern.nullable(),
  status: z.enum(["supported", "contradicted", "unknown"]),
  static_status: sideStatus,
  runtime_status: sideStatus,
  side_alignment: z.enum(["left_to_left", "left_to_right"]),
  static_evidence_id: z.string(),
  runtime_evidence_id: z.string(),
  reason: z.string(),
});

/** REA's contract: each mapping's hypothesis evaluated against the comparisons given. */
function hypothesesOutcome(args: {
  static_comparisons?: InlineEvidence[] | undefined;
  runtime_comparisons?: InlineEvidence[] | undefined;
  mappings?: HypothesisMapping[] | undefined;
  offset: number;
  limit: number;
}): Promise<Extract<ToolOutcome, { kind: "evidence" }>> {
  const staticRecords = (args.static_comparisons ?? []).map(verifiedInlineRecord);
  const runtimeRecords = (args.runtime_comparisons ?? []).map(verifiedInlineRecord);
  let evaluated;
  try {
    evaluated = evaluateHypotheses(args.mappings ?? [], {
      static: staticRecords,
      runtime: runtimeRecords,
    });
  } catch (error) {
    if (error instanceof RangeError) throw new ToolFailure("invalid_request", error.message);
    throw error;
  }
  const unknown = evaluated.filter((h) => h.status === "unknown").length;
  const links = [...new Set([...staticRecords, ...runtimeRecords].map((r) => r.evidence_id))];
  return Promise.resolve({
    kind: "evidence",
    draft: {
      subject: staticRecords[0]?.subject ?? null,
      provider: { id: "casefile-correlation", name: "Casefile correlation", version: "1" },
      operation: CORRELATE_STATIC_AND_RUNTIME,
      predicate_type: "rea.static-runtime-correlation/v1",
      confidence: "derived",
      authority: "analyst-inference",
      parameters: {
        static_evidence_ids: staticRecords.map((r) => r.evidence_id),
        runtime_evidence_ids: runtimeRecords.map((r) => r.evidence_id),
        mappings: args.mappings as unknown as JsonValue,
        offset: args.offset,
        limit: args.limit,
      },
      normalized_result: {
        hypotheses: pageOf(evaluated, args.offset, args.limit),
      } as unknown as JsonValue,
      evidence_links: links,
      limitations: unknown === 0 ? [] : [
        `${unknown} of ${evaluated.length} hypotheses could not be evaluated: a side's comparison cannot say whether that dimension changed.`,
      ],
    },
  });
}

/**
 * The address to look up for a backtrace frame: the innermost frame's pc is
 * the faulting instruction, but every caller frame holds a return address,
 * which points after its call (past the end of a procedure that ends in a
 * call that never returns), so one is taken off.
 */
export function frameLookupAddress(frame: { index: number; pc: string }): bigint {
  const pc = BigInt(frame.pc);
  return frame.index > 0 && pc > 0n ? pc - 1n : pc;
}

/** Mapped files (read when Deno allows) whose size and SHA-256 are the target's. */
async function sameContentPaths(
  mappings: readonly { path: string | null }[],
  target: { size: number; sha256: string },
  known: readonly string[],
): Promise<string[]> {
  const out: string[] = [];
  const paths = new Set(
    mappings.map((m) => m.path).filter((p): p is string => p !== null && p.startsWith("/")),
  );
  for (const path of paths) {
    if (known.includes(path)) continue;
    try {
      const info = await Deno.stat(path);
      if (!info.isFile || info.size !== target.size) continue;
      if (sha256Hex(await Deno.readFile(path)) === target.sha256) out.push(path);
    } catch {
      // Unreadable (or gone): it cannot be matched by content.
    }
  }
  return out;
}
