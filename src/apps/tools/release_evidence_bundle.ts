/**
 * `release_evidence_bundle`: releases a retained Evidence bundle.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, type ToolDefinition } from "../../core/catalog.ts";

import type { AppsContext } from "../context/apps_context.ts";
import { releaseResultSchema } from "../schemas/artifact_results.ts";
import { RELEASE_EVIDENCE_BUNDLE } from "../tool_names.ts";

/** Releases a retained bundle by its digest. */
export function releaseEvidenceBundleTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: RELEASE_EVIDENCE_BUNDLE,
    toolset: "artifacts",
    description:
      "Release a retained Evidence bundle by its digest; a digest not held is a no-op that says released: false.",
    input: z.strictObject({
      bundle_digest: z.string().regex(/^[0-9a-f]{64}$/).describe(
        "The bundle_digest snapshot_evidence_bundle returned.",
      ),
    }),
    result: releaseResultSchema,
    effects: { mutatesSession: true, mayDiscardData: true },
    producesEvidence: false,
    run: (args) => {
      const digest = args.bundle_digest;
      return Promise.resolve({
        kind: "result",
        result: { bundle_digest: digest, released: context.bundles.release(digest) },
      });
    },
  });
}
