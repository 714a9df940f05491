/**
 * The process-capture tools of the apps workbench: approval-gated
 * `capture_process_scenario`, `compare_process_captures`,
 * `correlate_static_and_runtime` and `find_changed_behavior`, the `capture`
 * completion source, and the `process_capture` capability for
 * `binary_session`. Handlers translate; the work lives in `capture/`.
 *
 * @module
 */

import { z } from "zod";
import type { ToolContext, ToolDefinition, ToolOutcome } from "../core/catalog.ts";
import type { JsonObject } from "../core/canonical_json.ts";
import { MAX_CANDIDATES_SCANNED } from "../core/completion.ts";
import { ToolFailure } from "../core/errors.ts";
import type { EvidenceLedger, EvidenceRecord } from "../core/evidence.ts";
import type { CapturePolicySettings } from "./capture/settings.ts";
import { VERSION } from "../version.ts";
import { hex } from "./analysis/dossier.ts";
import type { AnalysisToolDeps } from "./analysis_tools.ts";
import { CAPTURE_OPERATION, COMPARE_OPERATION, findChangedBehavior } from "./capture/changes.ts";
import {
  compareCaptures,
  COMPARISON_PREDICATE,
  comparisonResultSchema,
  IncompatibleCaptures,
} from "./capture/compare.ts";
import { mapRuntimeAddress } from "./capture/correlate.ts";
import { hostFacts, missingGrants } from "./capture/host.ts";
import { describePlan, executableName, planCapture } from "./capture/plan.ts";
import {
  type CaptureRequest,
  captureRequestShape,
  validateCrossFields,
} from "./capture/request.ts";
import {
  buildCapture,
  CAPTURE_PREDICATE,
  captureResultSchema,
  PROCESS_PROVIDER,
  type ProcessCapture,
  validateCapture,
} from "./capture/result.ts";
import { chooseBackends, runCapture } from "./capture/runner.ts";
import { demangle } from "./disasm/demangle.ts";
import { dossierFrom, procedureLookupOf } from "./providers/provider.ts";
import type { BinarySession } from "./session/binary_session.ts";
import {
  ANALYZE_FUNCTION,
  CAPTURE_PROCESS_SCENARIO,
  COMPARE_PROCESS_CAPTURES,
  CORRELATE_STATIC_AND_RUNTIME,
  FIND_CHANGED_BEHAVIOR,
  RESOLVE_CONTAINING_PROCEDURE,
} from "./tool_names.ts";

/** What the capture tools need from the workbench. */
export interface CaptureToolDeps {
  session: BinarySession;
  ledger: EvidenceLedger;
  /** The operator's capture policy. */
  policy: Readonly<CapturePolicySettings>;
  /** The Evidence helper of the analysis tools (for correlation, which is about the target). */
  observation: AnalysisToolDeps["observation"];
}

const EVIDENCE_ID = z.string().regex(/^ev_[0-9a-f]{64}$/);
const ADDRESS = /^0x[0-9a-fA-F]{1,16}$/;

/** The `process_capture` capability line of `binary_session`; starts nothing. */
export function captureCapability(
  policy: Readonly<CapturePolicySettings>,
  processLaunch: boolean,
): { name: string; available: boolean; reason: string; enable_with: string | null } {
  const flags: string[] = [];
  const why: string[] = [];
  if (!processLaunch) {
    flags.push("--allow-process-launch");
    why.push("the operator policy does not allow starting processes");
  }
  if (policy.executables.length === 0 || policy.roots.length === 0) {
    flags.push("--allow-capture PATH", "--capture-root DIR");
    why.push("no executable or capture root is allowed");
  }
  const grants = missingGrants();
  if (grants.required.length > 0) {
    flags.push(...grants.required);
    why.push(`Deno lacks ${grants.required.join(" ")}`);
  }
  const optional = grants.optional.length > 0
    ? ` Optional backends not granted: ${grants.optional.join(" ")}.`
    : "";
  if (why.length > 0) {
    return {
      name: "process_capture",
      available: false,
      reason: `Process capture is unavailable: ${why.join("; ")}.${optional}`,
      enable_with: flags.join(" "),
    };
  }
  return {
    name: "process_capture",
    available: true,
    reason: `Captures may run ${policy.executables.join(", ")} with working directories under ${
      policy.roots.join(", ")
    }; each run needs approved: true${
      policy.requireHumanConfirmation ? " and a human's confirmation (form elicitation)" : ""
    } and --allow-run for the program. strace, unshare -n and a pids cgroup are used when the host allows; the first capture probes them.${optional}`,
    enable_with: null,
  };
}

/** The `capture` completion source: ids of retained captures that pass the full v4 validation. */
export function captureCandidates(ledger: EvidenceLedger): string[] {
  const out: string[] = [];
  for (const record of ledger.list()) {
    if (out.length >= MAX_CANDIDATES_SCANNED) break;
    if (record.operation !== CAPTURE_OPERATION) continue;
    if (validateCapture(record.normalized_result).valid) out.push(record.evidence_id);
  }
  return out;
}

/** Builds the capture tools. */
export function captureTools(deps: CaptureToolDeps): ToolDefinition[] {
  const { session, ledger, policy } = deps;

  const retainedCapture = (id: string, side: string): {
    record: EvidenceRecord;
    capture: ProcessCapture;
  } => {
    const record = ledger.get(id);
    if (!record) {
      throw new ToolFailure("invalid_request", `The ${side} capture ${id} is not retained.`, {
        action: "Call capture_process_scenario, then pass the evidence_id it returns.",
        details: { reason: "missing", evidence_id: id },
      });
    }
    if (record.operation !== CAPTURE_OPERATION) {
      throw new ToolFailure(
        "invalid_request",
        `Evidence ${id} records ${record.operation}, not capture_process_scenario.`,
        { details: { reason: "wrong_operation", evidence_id: id } },
      );
    }
    if (record.predicate_type !== CAPTURE_PREDICATE) {
      throw new ToolFailure(
        "invalid_request",
        `Evidence ${id} has predicate ${record.predicate_type}, not ${CAPTURE_PREDICATE}.`,
        { details: { reason: "wrong_predicate", evidence_id: id } },
      );
    }
    const validation = validateCapture(record.normalized_result);
    if (!validation.valid) {
      throw new ToolFailure(
        "invalid_request",
        `Evidence ${id} is not a valid Process Capture v4: ${validation.reason}.`,
        { details: { reason: "invalid_capture", evidence_id: id } },
      );
    }
    return { record, capture: validation.capture };
  };

  const confirm = async (
    plan: Awaited<ReturnType<typeof planCapture>>,
    context: ToolContext,
  ): Promise<void> => {
    if (!policy.requireHumanConfirmation) return;
    if (!context.elicit) {
      throw new ToolFailure(
        "permission_required",
        "The operator policy requires a human to confirm each capture, but this client does not support form elicitation. Nothing was run.",
        {
          action:
            "Use an MCP client that declares the elicitation capability, or ask the operator to drop --confirm-captures.",
          details: { layer: "human_confirmation" },
        },
      );
    }
    const answer = await context.elicit(
      `Casefile asks to run a process capture:\n\n${
        describePlan(plan)
      }\n\nConfirm to run exactly this; decline and nothing runs.`,
      {
        type: "object",
        properties: {
          confirm: {
            type: "boolean",
            title: `Run ${executableName(plan)} as shown`,
            description: "true runs exactly the plan above; false refuses it.",
          },
        },
        required: ["confirm"],
      },
    );
    if (answer.action !== "accept" || answer.content?.confirm !== true) {
      throw new ToolFailure(
        "permission_required",
        `The human at the client did not confirm the capture (${answer.action}). Nothing was run.`,
        {
          action: "Revise the plan with the human, then call capture_process_scenario again.",
          details: { layer: "human_confirmation", action: answer.action },
        },
      );
    }
  };

  return [
    {
      name: CAPTURE_PROCESS_SCENARIO,
      description:
        "Run one program under hard limits and record what it did as a Process Capture v4: exit code or signal, output (byte-capped, truncation flagged), scripted stdin and signals, filesystem checkpoints, processes started, and — when strace is available — files opened and written, programs executed and connection attempts; with crash_backtrace (gdb) a backtrace and memory map. Runs only when every layer agrees: --allow-process-launch, the operator capture policy (executable, roots, environment names), approved: true, the Deno --allow-run grant for the program, and a human's confirmation when the policy asks for one. Environment values are never recorded. Not a sandbox: the program runs with the server's permissions; every process of the run is ended and verified gone afterwards.",
      input: z.strictObject(captureRequestShape),
      result: captureResultSchema,
      effects: { launchesProcess: true, mutatesSession: true, idempotent: false },
      producesEvidence: true,
      run: async (args, context): Promise<ToolOutcome> => {
        const request = args as CaptureRequest;
        validateCrossFields(request);
        await context.progress(0, 4, "checking the operator policy and Deno grants");
        const plan = await planCapture(request, policy);
        await confirm(plan, context);
        await context.progress(1, 4, "probing the host's capture backends");
        const facts = await hostFacts();
        const backend = chooseBackends(plan, facts);
        const run = await runCapture(plan, backend, facts, {
          signal: context.signal,
          onProgress: (message) => context.progress(2, 4, message),
        });
        await context.progress(3, 4, "building the capture");
        const capture = buildCapture(plan, run, {
          casefileVersion: VERSION,
          platform: facts.platform,
          architecture: facts.architecture,
        });
        const validation = validateCapture(capture);
        if (!validation.valid) {
          throw new ToolFailure(
            "execution_failure",
            `The capture failed its own v4 validation (${validation.reason}); this is a server fault.`,
          );
        }
        const limitations = [...capture.limitations];
        if (request.unknown_registry_approved) {
          limitations.push(
            "unknown_registry_approved was set, but this tool does not write residual unknowns to the registry: record them with record_unknown.",
          );
        }
        return {
          kind: "evidence",
          draft: {
            subject: null,
            provider: { ...PROCESS_PROVIDER },
            operation: CAPTURE_PROCESS_SCENARIO,
            predicate_type: CAPTURE_PREDICATE,
            confidence: "observed",
            authority: "controlled-replay",
            environment: {
              id: `${facts.platform}-${facts.architecture}`,
              platform: facts.platform,
              architecture: facts.architecture,
              isolation: backend.network === "namespace" ? "process+network-namespace" : "process",
            },
            // A secret-free projection: never the environment, never input data.
            parameters: {
              executable_name: executableName(plan),
              argument_count: request.arguments.length,
              event_count: request.events.length,
              filesystem_root_count: request.filesystem_roots.length,
              checkpoint_count: request.checkpoints.length,
              command_shim_count: request.command_shims.length,
              normalization: request.normalization as unknown as JsonObject,
            },
            normalized_result: capture,
            limitations,
            transferred: true,
          },
        };
      },
    },
    {
      name: COMPARE_PROCESS_CAPTURES,
      description:
        "Compare two retained Process Capture v4 records made under the same comparison contract, dimension by dimension: terminal output, interaction, exit, filesystem effects, protocol (connection attempts), processes and shims, each after its own normalisation. Each dimension and the overall status is unchanged, added, removed, changed, truncated or unknown; a truncated side is never called unchanged. Starts nothing.",
      input: z.strictObject({
        left_evidence_id: EVIDENCE_ID.describe("The baseline capture's Evidence id."),
        right_evidence_id: EVIDENCE_ID.describe("The other capture's Evidence id."),
        max_capture_age_ms: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional()
          .describe("Refuse captures completed longer ago than this."),
      }),
      result: comparisonResultSchema,
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: (args): Promise<ToolOutcome> => {
        const leftId = args.left_evidence_id as string;
        const rightId = args.right_evidence_id as string;
        if (leftId === rightId) {
          throw new ToolFailure("invalid_request", "Compare two different captures.");
        }
        const left = retainedCapture(leftId, "left");
        const right = retainedCapture(rightId, "right");
        let result;
        try {
          result = compareCaptures(left.capture, right.capture, {
            ...(args.max_capture_age_ms !== undefined
              ? { maxCaptureAgeMs: args.max_capture_age_ms as number }
              : {}),
          });
        } catch (error) {
          if (error instanceof IncompatibleCaptures) {
            throw new ToolFailure("invalid_request", `Cannot compare: ${error.message}.`, {
              action:
                "Capture both sides with the same scenario fields (only executable and arguments may differ).",
              details: { reason: "incompatible" },
            });
          }
          throw error;
        }
        const limitations = [...result.limitations];
        if (JSON.stringify(left.record.environment) !== JSON.stringify(right.record.environment)) {
          limitations.push("The two captures ran in different environments.");
        }
        return Promise.resolve({
          kind: "evidence",
          draft: {
            subject: null,
            provider: { ...PROCESS_PROVIDER },
            operation: COMPARE_PROCESS_CAPTURES,
            predicate_type: COMPARISON_PREDICATE,
            confidence: "derived",
            authority: "analyst-inference",
            parameters: {
              left_evidence_id: leftId,
              right_evidence_id: rightId,
              left_normalization: left.capture.normalization as unknown as JsonObject,
              right_normalization: right.capture.normalization as unknown as JsonObject,
              max_capture_age_ms: (args.max_capture_age_ms as number | undefined) ?? null,
            },
            normalized_result: result,
            evidence_links: [leftId, rightId],
            limitations,
          },
        });
      },
    },
    {
      name: CORRELATE_STATIC_AND_RUNTIME,
      description:
        "Tie a runtime address from a retained capture — its crash PC, a backtrace frame (crash_backtrace captures), or an address you pass — to the containing procedure of the open target and that procedure's dossier. The address is mapped through the memory map the capture recorded (exact for PIE and non-PIE); without one, through a load base you give, or taken as static, and then the result is marked inferred. The open target must be the file the capture ran (same SHA-256) or the module the frame lies in.",
      input: z.strictObject({
        capture_evidence_id: EVIDENCE_ID.describe(
          "A retained capture_process_scenario Evidence id.",
        ),
        frame: z.number().int().min(0).max(63).optional().describe(
          "Backtrace frame index; by default the first frame inside the open file.",
        ),
        runtime_address: z.string().regex(ADDRESS).optional().describe(
          "A runtime address observed in that run (instead of a frame).",
        ),
        load_base: z.string().regex(ADDRESS).optional().describe(
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
      }),
      result: z.record(z.string(), z.unknown()),
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: async (args, context): Promise<ToolOutcome> => {
        const id = args.capture_evidence_id as string;
        const { capture } = retainedCapture(id, "given");
        await session.idle();
        // Correlation is containing-procedure resolution plus the dossier, on the bound provider.
        const scope = session.analysis(
          RESOLVE_CONTAINING_PROCEDURE,
          args.document as string | undefined,
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
        let address: bigint;
        let frame: (typeof frames)[number] | null = null;
        if (args.runtime_address !== undefined) {
          address = BigInt(args.runtime_address as string);
        } else if (args.frame !== undefined) {
          frame = frames[args.frame as number] ?? null;
          if (!frame) {
            throw new ToolFailure(
              "invalid_request",
              `The capture has ${frames.length} backtrace frame(s); there is no frame ${args.frame}.`,
            );
          }
          address = BigInt(frame.pc);
        } else {
          frame = frames.find((f) => {
            const m = mapRuntimeAddress(BigInt(f.pc), image, { mappings, modulePaths });
            return m.static_address !== null;
          }) ?? frames[0] ?? null;
          if (frame) address = BigInt(frame.pc);
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
        if (!sameFile && !mappings.some((m) => m.path === target.realPath)) {
          throw new ToolFailure(
            "invalid_request",
            `The open target ${target.name} is not the file the capture ran (SHA-256 differs) and no recorded mapping names it.`,
            {
              action:
                `Open ${capture.manifest.executable_real_path} (the captured executable) with open_binary first.`,
            },
          );
        }
        const mapping = mapRuntimeAddress(address, image, {
          mappings,
          modulePaths,
          ...(args.load_base !== undefined ? { loadBase: BigInt(args.load_base as string) } : {}),
        });
        const limitations: string[] = [mapping.explanation];
        if (!sameFile) {
          limitations.push(
            "The capture pinned only its executable's digest: this module's bytes at run time are assumed to equal the open file's.",
          );
        }
        let procedure = null;
        let dossier = null;
        let section = null;
        if (mapping.static_address !== null) {
          const at = BigInt(mapping.static_address);
          // Containment and the dossier are the bound provider's own observations.
          const lookup = await procedureLookupOf(scope, RESOLVE_CONTAINING_PROCEDURE);
          limitations.push(...lookup.limitations);
          section = lookup.sectionAt(at);
          const found = lookup.table.containing(at);
          if (found) {
            procedure = {
              address: hex(found.fn.address),
              name: found.fn.name,
              demangled: demangle(found.fn.name),
              size: found.fn.size > 0n ? Number(found.fn.size) : null,
              offset: Number(at - found.fn.address),
              bounded_by: found.bounded,
            };
            if (found.bounded === "next-start") {
              limitations.push(
                "The procedure has no recorded size: containment assumes it runs to the next known start.",
              );
            }
            if (scope.provider.capabilities.includes(ANALYZE_FUNCTION)) {
              try {
                const built = await dossierFrom(scope, {
                  operation: CORRELATE_STATIC_AND_RUNTIME,
                  procedure: found.fn,
                  control: {
                    signal: context.signal,
                    onProgress: (done, total, message) => context.progress(done, total, message),
                  },
                  includeCallers: args.include_callers as boolean,
                  limit: 20,
                  maxInstructions: args.max_instructions as number,
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
        const outcome = deps.observation(
          CORRELATE_STATIC_AND_RUNTIME,
          scope.provider,
          target,
          image,
          context.parameters,
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
          },
        );
        outcome.draft.confidence = confidence;
        outcome.draft.authority = "analyst-inference";
        outcome.draft.evidence_links = [id];
        outcome.draft.limitations.push(...limitations);
        return outcome;
      },
    },
    {
      name: FIND_CHANGED_BEHAVIOR,
      description:
        "Aggregate retained compare_process_captures Evidence into what changed and in which dimensions. Only complete, compatible comparisons count (valid v4 sources under one contract and one environment, no dimension truncated or unknown, links exactly the two sources); every other record is listed as excluded with the reason. Starts nothing.",
      input: z.strictObject({
        evidence_ids: z.array(EVIDENCE_ID).max(1000).optional().describe(
          "Comparison Evidence ids; every retained comparison when left out.",
        ),
        offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).describe(
          "Index of the first included comparison to return.",
        ),
        limit: z.number().int().min(1).max(100).default(50).describe(
          "Included comparisons per page (1 to 100).",
        ),
      }),
      result: z.record(z.string(), z.unknown()),
      effects: { mutatesSession: true },
      producesEvidence: true,
      run: (args, context): Promise<ToolOutcome> => {
        const ids = args.evidence_ids as string[] | undefined;
        const records: EvidenceRecord[] = [];
        const missing: { evidence_id: string; reason: string }[] = [];
        if (ids) {
          for (const id of [...new Set(ids)]) {
            const record = ledger.get(id);
            if (record) records.push(record);
            else missing.push({ evidence_id: id, reason: "not retained" });
          }
        } else {
          records.push(...ledger.list().filter((r) => r.operation === COMPARE_OPERATION));
        }
        const found = findChangedBehavior(records, (id) => ledger.get(id));
        const offset = args.offset as number;
        const limit = args.limit as number;
        const page = found.included.slice(offset, offset + limit);
        const end = offset + page.length;
        const excluded = [...missing, ...found.excluded];
        return Promise.resolve({
          kind: "evidence",
          draft: {
            subject: null,
            provider: { ...PROCESS_PROVIDER },
            operation: FIND_CHANGED_BEHAVIOR,
            predicate_type: "rea.changed-behavior/v1",
            confidence: "derived",
            authority: "analyst-inference",
            parameters: context.parameters,
            normalized_result: {
              considered: found.considered + missing.length,
              changed_count: found.changed_count,
              unchanged_count: found.unchanged_count,
              by_dimension: found.by_dimension,
              items: page,
              offset,
              limit,
              total: found.included.length,
              has_more: end < found.included.length,
              next_offset: end < found.included.length ? end : null,
              excluded: excluded.slice(0, 200),
              excluded_count: excluded.length,
            },
            evidence_links: found.included.map((e) => e.comparison_evidence_id),
            limitations: [
              "Only complete, compatible comparisons are aggregated; excluded ones say nothing either way.",
              ...(excluded.length > 200
                ? [`${excluded.length - 200} exclusions are not listed.`]
                : []),
            ],
          },
        });
      },
    },
  ];
}
