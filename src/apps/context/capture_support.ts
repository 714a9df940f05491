/**
 * What the capture tools share: the `process_capture` capability line of
 * `binary_session`, the `capture` completion source, retained-capture lookup
 * and the human confirmation of a capture plan.
 *
 * @module
 */

import type { ToolContext } from "../../core/catalog.ts";
import { MAX_CANDIDATES_SCANNED } from "../../core/completion.ts";
import { ToolFailure } from "../../core/errors.ts";
import type { EvidenceLedger, EvidenceRecord } from "../../core/evidence.ts";
import { CAPTURE_OPERATION } from "../capture/changes.ts";
import { type CaptureGap, captureGaps } from "../capture/readiness.ts";
import { describePlan, executableName, type planCapture } from "../capture/plan.ts";
import { CAPTURE_PREDICATE, type ProcessCapture, validateCapture } from "../capture/result.ts";
import type { CapturePolicySettings } from "../capture/settings.ts";

/** The `process_capture` capability line of `binary_session`; starts nothing. */
export function captureCapability(
  policy: Readonly<CapturePolicySettings>,
  processLaunch: boolean,
): {
  name: string;
  available: boolean;
  reason: string;
  enable_with: string | null;
  missing: CaptureGap[];
} {
  const flags: string[] = [];
  const why: string[] = [];
  if (!processLaunch) {
    flags.push("--allow-process-launch");
    why.push("the operator policy does not allow starting processes");
  }
  const configured = policy.executables.length > 0 && policy.roots.length > 0;
  if (!configured) {
    flags.push("--allow-capture PATH", "--capture-root DIR");
    why.push("no executable or capture root is allowed");
  }
  // Without a policy the roots and programs are unknown: only the fixed grants are listed.
  const gaps = captureGaps(policy);
  const required = gaps.filter((g) => g.required);
  if (required.length > 0) {
    flags.push(...required.map((g) => g.flag));
    why.push(`Deno lacks ${required.map((g) => `${g.flag} (${g.what})`).join(", ")}`);
  }
  const optional = gaps.filter((g) => !g.required);
  const optionalText = optional.length > 0
    ? ` Not granted, so unavailable: ${optional.map((g) => `${g.what}: ${g.flag}`).join("; ")}.`
    : "";
  if (why.length > 0) {
    return {
      name: "process_capture",
      available: false,
      reason: `Process capture is unavailable: ${why.join("; ")}.${optionalText}`,
      enable_with: [...new Set(flags)].join(" "),
      missing: gaps,
    };
  }
  return {
    name: "process_capture",
    available: true,
    reason: `Captures may run ${policy.executables.join(", ")} with working directories under ${
      policy.roots.join(", ")
    }; each run needs approved: true${
      policy.requireHumanConfirmation ? " and a human's confirmation (form elicitation)" : ""
    } and --allow-run for the program. strace, unshare -n and a pids cgroup are used when the host allows; the first capture probes them.${optionalText}`,
    enable_with: null,
    missing: gaps,
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

/** A retained capture that passes the full v4 validation, or a clear failure. */
export function retainedCapture(
  ledger: EvidenceLedger,
  id: string,
  side: string,
): {
  record: EvidenceRecord;
  capture: ProcessCapture;
} {
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
}

/** Asks the human to confirm a capture plan when the operator policy requires it. */
export async function confirmCapture(
  policy: Readonly<CapturePolicySettings>,
  plan: Awaited<ReturnType<typeof planCapture>>,
  context: ToolContext,
): Promise<void> {
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
}
