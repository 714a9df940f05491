/**
 * The six guided prompts of the apps workbench. Names, titles, order,
 * argument names, required flags and completion families follow REA; the
 * wording is ours. Steps name only tools this server has today.
 *
 * @module
 */

import type { PromptContract } from "../core/prompts.ts";
import {
  ANALYZE_FUNCTION,
  BINARY_OVERVIEW,
  BINARY_SESSION,
  BUILD_CALL_PATH,
  CAPTURE_PROCESS_SCENARIO,
  COMPARE_ARTIFACTS,
  COMPARE_FUNCTIONS,
  COMPARE_PROCESS_CAPTURES,
  CORRELATE_STATIC_AND_RUNTIME,
  FIND_CHANGED_BEHAVIOR,
  INVENTORY_ARTIFACT,
  LIST_DOCUMENTS,
  LIST_UNKNOWNS,
  OPEN_BINARY,
  PROCEDURE_ADDRESS,
  PROCEDURE_CALLEES,
  PROCEDURE_CALLERS,
  RECORD_UNKNOWN,
  RESOLVE_CONTAINING_PROCEDURE,
  SEARCH_PROCEDURES,
  SEARCH_STRINGS,
  SET_CURRENT_DOCUMENT,
  SNAPSHOT_EVIDENCE_BUNDLE,
  TRACE_FEATURE,
  UPDATE_UNKNOWN,
  VERIFY_RECONSTRUCTION,
  VERIFY_UNKNOWN_RESOLUTION,
  XREFS,
} from "./tool_names.ts";

const TARGET_PATH = {
  name: "target_path",
  description: "Absolute path of the target; leave out when the right target is already open.",
  required: false,
};

/** The contracts, in `prompts/list` order. */
export const APPS_PROMPTS: PromptContract[] = [
  {
    name: "investigate_feature",
    title: "Investigate a feature",
    description:
      "Follow one feature of a shipped binary from discovery to bounded, cited per-procedure Evidence.",
    objective:
      "Locate the code behind the requested feature and support every claim about it with Evidence, without implying that original source was recovered.",
    arguments: [
      {
        name: "feature",
        description: "The feature, behaviour, literal string or symbol to investigate.",
        required: true,
      },
      TARGET_PATH,
      {
        name: "document",
        description: "The analysis document to work in (as list_documents names it).",
        required: false,
        completion: "document",
      },
      {
        name: "procedure",
        description: "A procedure name or 0x address to examine first.",
        required: false,
        completion: "procedure",
      },
      {
        name: "provider_id",
        description: "Preferred analysis provider (auto or an id); honoured only if it is usable.",
        required: false,
        completion: "provider",
      },
    ],
    steps: [
      {
        tools: [BINARY_SESSION, OPEN_BINARY],
        instruction:
          "Read the session status first: which providers are usable, what each capability needs, which roots are allowed. Open target_path only if the right target is not already active.",
      },
      {
        tools: [LIST_DOCUMENTS, SET_CURRENT_DOCUMENT, BINARY_OVERVIEW],
        instruction:
          "Make current only a document that list_documents returned, then take its bounded overview (format, architecture, procedure sources, imports, strings).",
      },
      {
        tools: [SEARCH_STRINGS, SEARCH_PROCEDURES, PROCEDURE_ADDRESS],
        instruction:
          "Search literally first (regex only when needed), follow every next_offset the question needs or name the pages you skipped, and turn chosen names into canonical addresses.",
      },
      {
        tools: [ANALYZE_FUNCTION, XREFS, PROCEDURE_CALLERS, PROCEDURE_CALLEES, TRACE_FEATURE],
        instruction:
          "Build dossiers for the candidates and cross-check their references and call edges. Whatever is reachable only indirectly, or through a truncated or incomplete scan, stays unknown.",
      },
      {
        tools: [SNAPSHOT_EVIDENCE_BUNDLE, RECORD_UNKNOWN],
        instruction:
          "Take a bundle snapshot and read it through the exact URI it returns before citing any Evidence id; write unknowns only with the registry write separately approved.",
      },
    ],
  },
  {
    name: "compare_application_versions",
    title: "Compare application versions",
    description:
      "Compare two shipped builds through complete listings, treating every data gap as unknown rather than unchanged.",
    objective:
      "Establish what differs between the baseline and the candidate build, each difference backed by Evidence from both sides under identical bounds.",
    arguments: [
      {
        name: "left_target_path",
        description: "Absolute path of the baseline (older) build.",
        required: true,
      },
      {
        name: "right_target_path",
        description: "Absolute path of the candidate (newer) build.",
        required: true,
      },
      {
        name: "left_manifest_id",
        description: "A retained baseline manifest to reuse or check.",
        required: false,
        completion: "manifest",
      },
      {
        name: "right_manifest_id",
        description: "A retained candidate manifest to reuse or check.",
        required: false,
        completion: "manifest",
      },
      {
        name: "focus_occurrence_id",
        description:
          "A retained occurrence to look at first; choosing it authorises no extraction.",
        required: false,
        completion: "occurrence",
      },
    ],
    steps: [
      {
        tools: [OPEN_BINARY, INVENTORY_ARTIFACT],
        instruction:
          "inventory_artifact takes no path: open each version, then inventory it, fetching every node, occurrence and edge page; keep every page's evidence_id per manifest.",
      },
      {
        tools: [SNAPSHOT_EVIDENCE_BUNDLE, COMPARE_ARTIFACTS],
        instruction:
          "Snapshot and read the bundle by its URI, then compare the full left and right page sets. A missing page makes the comparison truncated, never unchanged.",
      },
      {
        tools: [OPEN_BINARY, ANALYZE_FUNCTION, COMPARE_FUNCTIONS],
        instruction:
          "When code-level localisation is needed, open each changed binary by its occurrence_id (read from the artifact in memory, no extraction), analyse explicitly paired procedures with identical limits on both targets, then compare the two dossiers.",
      },
      {
        tools: [COMPARE_PROCESS_CAPTURES, FIND_CHANGED_BEHAVIOR],
        instruction:
          "Keep optional controlled-runtime comparisons apart from static candidates; aggregate only complete, compatible comparison Evidence.",
      },
      {
        tools: [RECORD_UNKNOWN],
        instruction:
          "Keep what stays unresolved visible: paths without a partner, partial page sets, provider disagreements, uncertain causality. The registry changes only with explicit approval.",
      },
    ],
  },
  {
    name: "verify_reconstruction",
    title: "Verify a reconstruction",
    description:
      "Check a finite reconstruction specification claim by claim against retained comparison Evidence.",
    objective:
      "Give each claim of the reconstruction goal a pass, fail or unknown verdict grounded in retained Evidence, never widening a verdict into global equivalence.",
    arguments: [
      {
        name: "reconstruction_goal",
        description: "The bounded behaviour or structure the rebuild must meet.",
        required: true,
      },
      {
        name: "comparison_evidence_id",
        description: "A retained comparison Evidence record to use in a claim.",
        required: false,
        completion: "evidence",
      },
      {
        name: "provider_id",
        description: "A provider whose limits the verification must respect.",
        required: false,
        completion: "provider",
      },
    ],
    steps: [
      {
        tools: [SNAPSHOT_EVIDENCE_BUNDLE],
        instruction:
          "Snapshot, read the bundle by its exact URI, and confirm each comparison id you will cite is there and suits its claim.",
      },
      {
        tools: [COMPARE_ARTIFACTS, COMPARE_FUNCTIONS, COMPARE_PROCESS_CAPTURES],
        instruction:
          "Create any bounded comparison still missing, with equal scope on both sides. A dimension you could not observe completely stays unknown.",
      },
      {
        tools: [VERIFY_RECONSTRUCTION],
        instruction:
          "Assemble a finite, typed specification and check it. Read a pass only for the claim and dimension it was declared for.",
      },
      {
        tools: [LIST_UNKNOWNS, RECORD_UNKNOWN],
        instruction:
          "List what verification left unknown and what authority would settle it; record new entries only with explicit approval.",
      },
    ],
  },
  {
    name: "trace_crash",
    title: "Trace a crash",
    description:
      "Connect a crash symptom to bounded static Evidence, keeping the observed failure apart from its presumed cause.",
    objective:
      "Map the crash signal to the procedures it implicates, separating what was observed, what is statically reachable and what is inferred.",
    arguments: [
      {
        name: "crash_signal",
        description: "The symptom: message, exception, signal, faulting address or reproduction.",
        required: true,
      },
      TARGET_PATH,
      {
        name: "document",
        description: "The analysis document to work in.",
        required: false,
        completion: "document",
      },
      {
        name: "procedure",
        description: "A procedure believed to be near the crash.",
        required: false,
        completion: "procedure",
      },
      {
        name: "capture_evidence_id",
        description: "An already retained process capture of the crash.",
        required: false,
        completion: "capture",
      },
    ],
    steps: [
      {
        tools: [BINARY_SESSION, OPEN_BINARY, BINARY_OVERVIEW],
        instruction: "Establish target and provider state before opening or analysing anything.",
      },
      {
        tools: [SEARCH_STRINGS, SEARCH_PROCEDURES, RESOLVE_CONTAINING_PROCEDURE, ANALYZE_FUNCTION],
        instruction:
          "Map the crash text or addresses to bounded dossiers. A similar-looking symbol alone never locates the fault; a containment bounded only by the next start is an inference.",
      },
      {
        tools: [XREFS, PROCEDURE_CALLERS, BUILD_CALL_PATH],
        instruction:
          "Follow corroborated references and caller chains. Frontiers from indirect calls, depth limits or paging are recorded as unknowns, not as absence.",
      },
      {
        tools: [SNAPSHOT_EVIDENCE_BUNDLE, CAPTURE_PROCESS_SCENARIO, CORRELATE_STATIC_AND_RUNTIME],
        instruction:
          "Read the snapshot by its URI. Reuse a supplied capture; otherwise capture only with operator policy and per-call approval. Correlate through explicit hypotheses (a faulting address, a backtrace frame), never through timing or similar names.",
      },
      {
        tools: [RECORD_UNKNOWN],
        instruction:
          "Keep the observed crash apart from its presumed cause; record missing reproduction or authority only with explicit registry approval.",
      },
    ],
  },
  {
    name: "audit_residual_unknowns",
    title: "Audit residual unknowns",
    description:
      "Review the questions still open in this session against retained Evidence and name the cheapest probes that would settle them.",
    objective:
      "Close no question silently: each open question is either settled by cited Evidence or stays open with the probe that would settle it.",
    arguments: [
      {
        name: "audit_scope",
        description: "The decision, risk or investigation the audit serves.",
        required: true,
      },
      {
        name: "unknown_id",
        description: "One open unknown to audit; all open ones when left out.",
        required: false,
        completion: "unknown",
      },
      {
        name: "evidence_id",
        description: "A retained Evidence record bearing on the audit.",
        required: false,
        completion: "evidence",
      },
    ],
    steps: [
      {
        tools: [LIST_UNKNOWNS],
        instruction:
          "Start from the current heads. Take forward only ids of this session, each with its exact revision and requirement fields.",
      },
      {
        tools: [SNAPSHOT_EVIDENCE_BUNDLE, VERIFY_UNKNOWN_RESOLUTION],
        instruction:
          "Read the snapshot by its URI, examine supporting, contradicting and mutation Evidence, and re-check each resolved head for the authority it requires.",
      },
      {
        tools: [UPDATE_UNKNOWN],
        instruction:
          "Propose a replacement revision (full state, guarded by expected_revision) only when the Evidence warrants it, and only with explicit approval.",
      },
      {
        tools: [RECORD_UNKNOWN],
        instruction:
          "If the audit reveals a genuinely new question, propose bounded probes first and record it only with approval.",
      },
    ],
  },
  {
    name: "prepare_bounded_process_capture",
    title: "Prepare a bounded process capture",
    description:
      "Plan the smallest approval-gated process experiment, with every boundary spelled out, before anything runs.",
    objective:
      "Produce a capture plan that names the exact executable, roots, environment variable names, inputs, limits and cleanup, and that runs only with every approval in place.",
    arguments: [
      {
        name: "behavior_question",
        description: "What the run must answer, and when to stop.",
        required: true,
      },
      {
        name: "executable",
        description: "Absolute path of the program to run.",
        required: true,
      },
      {
        name: "working_directory",
        description: "Absolute working directory for the run.",
        required: true,
      },
      {
        name: "prior_capture_evidence_id",
        description: "An earlier retained capture to compare with or refine.",
        required: false,
        completion: "capture",
      },
    ],
    steps: [
      {
        tools: [BINARY_SESSION],
        instruction:
          "Read the capture capability, declared effects and limits before proposing a run. An unavailable capability is reported as unavailable, never a reason to widen policy.",
      },
      {
        tools: [SNAPSHOT_EVIDENCE_BUNDLE],
        instruction:
          "Read the snapshot by its URI. If an earlier capture exists, check what it left open (dimensions, truncation, cleanup) before designing another run.",
      },
      {
        tools: [CAPTURE_PROCESS_SCENARIO],
        instruction:
          "The proposal names the exact executable and working roots, filesystem roots, environment variable names (never values), the network mode, scripted inputs, byte, time and process caps, and the expected cleanup. It runs only with operator policy and approved: true.",
      },
      {
        tools: [COMPARE_PROCESS_CAPTURES],
        instruction:
          "When a compatible earlier capture exists, compare the complete v4 observations under their recorded normalisation.",
      },
      {
        tools: [RECORD_UNKNOWN],
        instruction:
          "Sampling gaps, truncated output, behaviour outside the process and uncertain cleanup become residual unknowns, stored only with separate approval.",
      },
    ],
  },
];
