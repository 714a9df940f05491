/**
 * `verify_reconstruction`: a reconstruction specification checked against
 * the comparison Evidence retained in the session.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import { deriveComparisonStatus } from "../capture/compare.ts";
import { validateCapture } from "../capture/result.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { pageOf } from "../context/procedure_query.ts";
import { isDossier, isInventoryPage, VERIFIER_PROVIDER } from "../context/artifact_access.ts";
import { specificationSchema } from "../reconstruction/specification.ts";
import { VerificationIntegrityError, verifySpecification } from "../reconstruction/verify.ts";
import { verificationResultSchema } from "../schemas/artifact_results.ts";
import { limitField, unknownRegistryApprovedField } from "../schemas/inputs.ts";
import { VERIFY_RECONSTRUCTION } from "../tool_names.ts";

/** Re-derives a process comparison's overall status from its dimensions (null if it cannot). */
function behavioralStatus(value: unknown): string | null {
  const dimensions = (value as { dimensions?: unknown } | null)?.dimensions;
  return dimensions && typeof dimensions === "object"
    ? deriveComparisonStatus(dimensions as Parameters<typeof deriveComparisonStatus>[0])
    : null;
}

/** Checks a reconstruction specification against the retained comparisons. */
export function verifyReconstructionTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: VERIFY_RECONSTRUCTION,
    toolset: "artifacts",
    description:
      "Check a finite reconstruction specification (1–100 typed claims) against the comparison Evidence retained in this session. Each claim names one comparison: behavioral (compare_process_captures; dimensions overall, terminal, interaction, exit, filesystem, protocol, process, shim), structural-function (compare_functions; overall, size, instruction_sequence, instruction_count, callees, referenced_strings, basic_blocks) or structural-artifact (compare_artifacts; overall). A claim passes only when its dimension is unchanged, its sources carry the needed authority and no open unknown touches them; a change fails it; anything incomplete is unknown. A comparison or source that is missing or of the wrong kind fails the whole call. Recorded as Evidence.",
    input: z.strictObject({
      specification: specificationSchema.describe(
        "{schema_version: 1, name, claims: [{claim_id, title, comparison_evidence_id, kind, dimension}]}",
      ),
      offset: z.number().int().min(0).max(99).default(0).describe(
        "Index of the first claim result.",
      ),
      limit: limitField(100, 100).describe(
        "Claim results per page (1–100).",
      ),
      coverage: z.strictObject({
        workspace_id: z.string().regex(/^rcw_[0-9a-f]{64}$/),
        revision: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
        revision_sha256: z.string().regex(/^[0-9a-f]{64}$/),
        boundary_id: z.string().min(1).max(200),
      }).optional().describe(
        "REA's reconstruction-workspace boundary to credit with this verification. Casefile keeps no reconstruction workspaces: the verification runs and says in its limitations that no coverage was committed.",
      ),
      unknown_registry_approved: unknownRegistryApprovedField,
    }),
    result: verificationResultSchema,
    ...RECORDS_EVIDENCE,
    run: (args, call) => {
      call.signal.throwIfAborted();
      let verification;
      try {
        verification = verifySpecification(args.specification, {
          record: (id) => context.ledger.get(id),
          unknownHeads: () => context.unknowns.heads(),
          isValidCapture: (value) => validateCapture(value).valid,
          isValidInventory: isInventoryPage,
          isValidDossier: isDossier,
          deriveBehavioralStatus: behavioralStatus,
        });
      } catch (error) {
        if (error instanceof VerificationIntegrityError) {
          throw new ToolFailure("invalid_request", error.message, {
            action: "Name a retained comparison of the claim's kind, created in this session.",
          });
        }
        throw error;
      }
      call.signal.throwIfAborted();
      const claims = pageOf(verification.claims, args.offset, args.limit);
      return Promise.resolve({
        kind: "evidence",
        draft: {
          subject: null,
          provider: VERIFIER_PROVIDER,
          operation: VERIFY_RECONSTRUCTION,
          predicate_type: "rea.reconstruction-verification/v1",
          confidence: "derived",
          authority: "analyst-inference",
          parameters: {
            specification_sha256: verification.specification_sha256,
            claim_ids: verification.claims.map((c) => c.claim_id),
            offset: args.offset,
            limit: args.limit,
          },
          normalized_result: { ...verification, claims },
          evidence_links: verification.evidence_links,
          limitations: [
            ...verification.limitations,
            ...(args.coverage
              ? [
                `Coverage for boundary ${args.coverage.boundary_id} of ${args.coverage.workspace_id} was not committed: this server keeps no reconstruction workspaces.`,
              ]
              : []),
          ],
        },
      });
    },
  });
}
