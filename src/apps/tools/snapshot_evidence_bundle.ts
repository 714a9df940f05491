/**
 * `snapshot_evidence_bundle`: the session's Evidence as a bundle.
 *
 * @module
 */

import { z } from "zod";
import type { JsonValue } from "../../core/canonical_json.ts";
import { CHANGES_SESSION, defineTool, type ToolDefinition } from "../../core/catalog.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { buildBundle } from "../evidence_bundle/bundle.ts";
import { bundleUri } from "../evidence_bundle/store.ts";
import { snapshotResultSchema } from "../schemas/artifact_results.ts";
import { SNAPSHOT_EVIDENCE_BUNDLE } from "../tool_names.ts";

/** Snapshots the session's Evidence and unknown revisions as an Evidence bundle v2. */
export function snapshotEvidenceBundleTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: SNAPSHOT_EVIDENCE_BUNDLE,
    toolset: "artifacts",
    description:
      "Snapshot every Evidence record and unknown revision of the session as an Evidence bundle v2 (canonical JSON with derived artifact, provider, environment, scenario and capture manifests). Returns its SHA-256 and the rea://evidence-bundle/<digest> URI to read it by; an unchanged snapshot returns the bundle already held. At most 16 bundles and 64 MiB are retained; they do not survive close_binary.",
    input: z.strictObject({}),
    result: snapshotResultSchema,
    ...CHANGES_SESSION,
    run: () => {
      const { bundle } = context.bundles.snapshot(
        buildBundle(context.ledger.list(), context.unknowns.revisions() as unknown as JsonValue[]),
      );
      const uri = bundleUri(bundle.digest);
      const result: z.output<typeof snapshotResultSchema> = {
        bundle_digest: bundle.digest,
        bundle_version: 2,
        bytes: bundle.bytes,
        records: bundle.records,
        unknowns: bundle.unknowns,
        scope: "session",
        survives_session: false,
        bundle_uri: uri,
      };
      return Promise.resolve({
        kind: "result",
        result,
        links: [{
          uri,
          name: `evidence bundle ${bundle.digest.slice(0, 12)}`,
          mimeType: "application/json",
        }],
      });
    },
  });
}
