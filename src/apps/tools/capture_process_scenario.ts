/**
 * `capture_process_scenario`: one approved, bounded process capture.
 *
 * @module
 */

import { z } from "zod";
import type { JsonObject } from "../../core/canonical_json.ts";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import { VERSION } from "../../version.ts";
import { hostFacts } from "../capture/host.ts";
import { executableName, planCapture } from "../capture/plan.ts";
import { captureRequestShape, validateCrossFields } from "../capture/request.ts";
import {
  buildCapture,
  CAPTURE_PREDICATE,
  PROCESS_PROVIDER,
  validateCapture,
} from "../capture/result.ts";
import { chooseBackends, runCapture } from "../capture/runner.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { confirmCapture } from "../context/capture_support.ts";
import { captureToolResultSchema } from "../schemas/capture_results.ts";
import { CAPTURE_PROCESS_SCENARIO } from "../tool_names.ts";

/** Runs one approved program under hard limits and records a Process Capture v4. */
export function captureProcessScenarioTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: CAPTURE_PROCESS_SCENARIO,
    toolset: "capture",
    description:
      "Run one program under hard limits and record what it did as a Process Capture v4: exit code or signal, output (byte-capped, truncation flagged), scripted stdin and signals, filesystem checkpoints, processes started, and — when strace is available — files opened and written, programs executed and connection attempts; with crash_backtrace (gdb) a backtrace and memory map. Runs only when every layer agrees: --allow-process-launch, the operator capture policy (executable, roots, environment names), approved: true, the Deno --allow-run grant for the program, and a human's confirmation when the policy asks for one. Environment values are never recorded. Not a sandbox: the program runs with the server's permissions; every process of the run is ended and verified gone afterwards. resource_limits sets rlimits (address space, CPU time, file size, open files) on the whole tree through prlimit; library_path gives the program its own library directory (LD_LIBRARY_PATH) without an unrestricted --allow-run. binary_session lists any Deno grant capture still lacks, with its flag.",
    input: z.strictObject(captureRequestShape),
    result: captureToolResultSchema,
    effects: { launchesProcess: true, mutatesSession: true, idempotent: false },
    producesEvidence: true,
    run: async (args, call) => {
      const request = args;
      validateCrossFields(request);
      await call.progress(0, 4, "checking the operator policy and Deno grants");
      const plan = await planCapture(request, context.capturePolicy);
      await confirmCapture(context.capturePolicy, plan, call);
      await call.progress(1, 4, "probing the host's capture backends");
      const facts = await hostFacts();
      const backend = chooseBackends(plan, facts);
      const run = await runCapture(plan, backend, facts, {
        signal: call.signal,
        onProgress: (message) => call.progress(2, 4, message),
      });
      await call.progress(3, 4, "building the capture");
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
  });
}
