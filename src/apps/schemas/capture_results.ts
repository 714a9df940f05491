/**
 * Result schemas of the capture tools: the Process Capture v4, the
 * comparison of two captures, static–runtime correlation and changed
 * behaviour.
 *
 * @module
 */

import { z } from "zod";
import { comparisonResultSchema, DIMENSIONS } from "../capture/compare.ts";
import { replaySchema } from "../capture/request.ts";
import { captureResultSchema } from "../capture/result.ts";
import { containingProcedureSchema, dossierSchema } from "./analysis_results.ts";

const int = z.number().int();

/**
 * The capture as published: the recorded scenario's HTTP route paths carry a
 * plain pattern instead of zod's `startsWith` (which JSON Schema validators
 * report as an unknown format).
 */
function publishedCaptureSchema(): z.ZodType {
  const manifest = captureResultSchema.shape.manifest;
  const scenario = manifest.shape.scenario;
  const route = replaySchema.shape.http.unwrap().element;
  const replay = replaySchema.extend({
    http: z.array(route.extend({ path: z.string().regex(/^\//).max(4096) })).max(100).default([]),
  });
  return captureResultSchema.extend({
    manifest: manifest.extend({
      scenario: scenario.extend({
        replay: replay.prefault({}).describe(
          scenario.shape.replay.description ?? "Replay peers.",
        ),
      }),
    }),
  });
}

/** `capture_process_scenario`: the Process Capture v4. */
export const captureToolResultSchema: z.ZodType = publishedCaptureSchema();

/** `compare_process_captures`. */
export const compareCapturesResultSchema = comparisonResultSchema;

const crash = captureResultSchema.shape.crash.unwrap();

/** `correlate_static_and_runtime`. */
export const correlationResultSchema = z.object({
  document: z.string(),
  capture_evidence_id: z.string(),
  crash: z.object({ signal: z.string(), source: crash.shape.source }).nullable(),
  frame: crash.shape.frames.element.nullable().describe("The backtrace frame correlated, if any."),
  mapping: z.object({
    runtime_address: z.string(),
    static_address: z.string().nullable(),
    method: z.enum(["memory-map", "load-base", "identity", "unmapped"]),
    confidence: z.enum(["derived", "inferred"]),
    module: z.string().nullable(),
    mapping: crash.shape.mappings.element.nullable(),
    file_offset: int.nullable(),
    load_base: z.string().nullable(),
    explanation: z.string(),
  }),
  static_address: z.string().nullable(),
  section: z.string().nullable(),
  procedure: containingProcedureSchema.nullable(),
  debugger_agrees: z.boolean().nullable().describe(
    "Whether the debugger's frame name is the procedure's; null when either is missing.",
  ),
  dossier: dossierSchema.nullable(),
  lookup_address: z.string().nullable().describe(
    "The runtime address looked up: a caller frame's return address minus 1 (it points after the call), the innermost frame's pc as is.",
  ),
  frames: z.array(z.object({
    index: int,
    pc: z.string(),
    lookup_address: z.string(),
    function: z.string().nullable().describe("The debugger's name for the frame."),
    module: z.string().nullable(),
    static_address: z.string().nullable().describe("Null when the frame is outside the open file."),
    procedure: z.object({ address: z.string(), name: z.string().nullable() }).nullable(),
  })).describe("Every backtrace frame mapped into the open file (empty without a backtrace)."),
});

const dimension = z.enum(DIMENSIONS);

/** `find_changed_behavior`. */
export const changedBehaviorResultSchema = z.object({
  considered: int,
  changed_count: int,
  unchanged_count: int,
  by_dimension: z.object(
    Object.fromEntries(DIMENSIONS.map((d) => [d, int])) as Record<
      (typeof DIMENSIONS)[number],
      typeof int
    >,
  ),
  items: z.array(z.object({
    comparison_evidence_id: z.string(),
    left_evidence_id: z.string(),
    right_evidence_id: z.string(),
    status: z.enum(["changed", "unchanged"]),
    changed_dimensions: z.array(dimension),
    undetermined_dimensions: z.array(dimension).describe(
      "Dimensions that could not be observed (unknown) in a comparison that changed elsewhere.",
    ),
    first_divergence: comparisonResultSchema.shape.first_divergence,
    crash_procedures: z.array(z.object({
      capture_evidence_id: z.string(),
      correlation_evidence_id: z.string(),
      document: z.string().nullable(),
      address: z.string(),
      name: z.string().nullable(),
      frame: int.nullable(),
      caller_procedures: z.array(z.object({
        frame: int,
        address: z.string(),
        name: z.string().nullable(),
      })),
    })).describe(
      "Procedures a crash of either capture correlates to, from retained correlate_static_and_runtime Evidence.",
    ),
  })),
  offset: int,
  limit: int,
  total: int,
  has_more: z.boolean(),
  next_offset: int.nullable(),
  excluded: z.array(z.object({ evidence_id: z.string(), reason: z.string() })).describe(
    "At most 200.",
  ),
  excluded_count: int,
});
