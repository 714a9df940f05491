/**
 * The session status `binary_session` reports: target, provider binding and
 * candidates, capabilities with the flag that enables each missing one,
 * permissions, policy, roots and ledger usage. Computing it starts nothing.
 *
 * @module
 */

import type { z } from "zod";
import { flagFor } from "../../core/permissions.ts";
import { VERSION } from "../../version.ts";
import type { sessionSchema } from "../schemas/session_results.ts";
import type { AppsContext } from "./apps_context.ts";
import { captureCapability } from "./capture_support.ts";
import { bindingView, describeArtifact, describeTarget } from "./describe.ts";

/** The session's status. */
export function sessionStatus(context: AppsContext): z.output<typeof sessionSchema> {
  const { services, session, ledger } = context;
  const target = session.target;
  const binding = session.binding;
  const grantedRoots = services.permissions.filter((p) => p.name === "read");
  const readable = grantedRoots.filter((p) => p.state === "granted");
  return {
    server: { name: "casefile", version: VERSION },
    target: target ? describeTarget(session, target) : null,
    artifact_target: context.artifact ? describeArtifact(context.artifact) : null,
    current_document: session.currentDocument,
    analysis_provider_binding: bindingView(binding),
    analysis_provider_candidates: session.candidates.map((provider) => ({
      provider: provider.identity,
      availability: provider.availability(),
      target_support: target
        ? provider.supports(target)
        : { status: "unknown", code: null, reason: "No target is open." },
      selected: binding?.provider === provider,
      capabilities: provider.capabilities,
    })),
    capabilities: [
      {
        name: "open_targets",
        available: readable.length > 0,
        reason: services.roots.length === 0
          ? "No --root is configured, so nothing can be opened."
          : readable.length > 0
          ? `Targets can be opened under ${readable.map((p) => p.target).join(", ")}.`
          : "No allowed root is readable: read permission was not granted.",
        enable_with: readable.length > 0
          ? null
          : services.roots.length === 0
          ? "--root DIR --allow-read=DIR"
          : grantedRoots.map((p) => p.flag).join(" "),
      },
      {
        name: "list_procedures",
        available: true,
        reason:
          "Procedure starts from symbol tables, exports, .pdata, LC_FUNCTION_STARTS, .eh_frame and WebAssembly code sections, read natively.",
        enable_with: null,
      },
      captureCapability(context.capturePolicy, context.processLaunch()),
    ],
    permissions: services.permissions.map((p) => ({
      name: p.name,
      target: p.target ?? null,
      state: p.state,
      flag: p.flag ?? flagFor(p.name, p.target),
      purpose: p.purpose,
    })),
    policy: {
      read_only: services.policy.readOnly,
      process_launch: context.processLaunch(),
      file_writes: services.policy.allowFileWrites && !services.policy.readOnly,
    },
    roots: services.roots.map((root) => ({ path: root.path, real_path: root.realPath })),
    ledger: {
      records: ledger.size,
      max_records: ledger.maxRecords,
      bytes: ledger.bytes,
      max_bytes: ledger.maxBytes,
    },
  };
}
