/**
 * `inventory_artifact`: one page of the active artifact target's inventory.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import { inventoryPage } from "../artifacts/inventory_page.ts";
import { type InventoryPage, inventoryPageSchema } from "../artifacts/model.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { ARTIFACT_GRAPH_PROVIDER, limitsOf, snapshotFor } from "../context/artifact_access.ts";
import { inventoryResultSchema } from "../schemas/artifact_results.ts";
import { pageFields, traversalLimitFields } from "../schemas/inputs.ts";
import { INVENTORY_ARTIFACT } from "../tool_names.ts";

/** Inventories the active artifact target; each page is recorded as Evidence. */
export function inventoryArtifactTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: INVENTORY_ARTIFACT,
    toolset: "artifacts",
    description:
      "Inventory the active artifact target (a directory, tar, ar/.deb, zip family (jar, apk, whl, ipa, nupkg), or a gzip/xz/zstd/bzip2 stream), descending into nested archives to max_depth. Every member gets a path, size, mode, link target, SHA-256 and kind (ELF, PE, Mach-O, WebAssembly, script, text, data). One scan under the given limits is an immutable snapshot; each call returns one page of nodes, occurrences and edges (100 by default, at most 500 each, and at most about 90,000 characters of JSON: a page cut short by size reports the items it holds as its limit) and records that page as Evidence. Fetch every page before comparing: follow each collection's own next_offset, and once a collection's next_offset is null pass its total as its offset (an empty page of it), not 0, so later pages carry only the collections still unread. Hostile member names are escaped and flagged; limits and damaged members mark the manifest incomplete.",
    input: z.strictObject({
      node_offset: pageFields("node").offset,
      node_limit: pageFields("node").limit,
      occurrence_offset: pageFields("occurrence").offset,
      occurrence_limit: pageFields("occurrence").limit,
      edge_offset: pageFields("edge").offset,
      edge_limit: pageFields("edge").limit,
      ...traversalLimitFields,
      integrity_policy: z.enum(["fail", "record-and-continue"]).default("fail").describe(
        "fail (default): a checksum failure fails the call. record-and-continue: record up to max_integrity_mismatches and go on; needs integrity_continue_approved: true.",
      ),
      integrity_continue_approved: z.boolean().default(false).describe(
        "Must be true with record-and-continue: you accept an inventory that lists members whose checksums failed.",
      ),
      max_integrity_mismatches: z.number().int().min(1).max(100).default(10).describe(
        "With record-and-continue: most checksum failures recorded before the call fails.",
      ),
      native_mount_approved: z.boolean().default(false).describe(
        "REA's approval to mount a disk image with the host's tools. Casefile reads every format it supports in-process and never mounts, so this changes nothing.",
      ),
    }),
    result: inventoryResultSchema,
    ...RECORDS_EVIDENCE,
    run: async (args, call) => {
      const target = context.requireArtifact(INVENTORY_ARTIFACT);
      const continueApproved = args.integrity_policy === "record-and-continue";
      if (continueApproved && args.integrity_continue_approved !== true) {
        throw new ToolFailure(
          "invalid_request",
          "integrity_policy record-and-continue needs integrity_continue_approved: true.",
          { action: "Pass integrity_continue_approved: true, or keep the default fail policy." },
        );
      }
      const { limits, notes } = limitsOf(args, context.ceilings);
      const snapshot = await snapshotFor(target, limits, {
        continueApproved,
        maxMismatches: args.max_integrity_mismatches,
      }, call);
      const built = inventoryPage(snapshot, args);
      const page: InventoryPage = { ...built, limitations: [...notes, ...built.limitations] };
      const checked = inventoryPageSchema.safeParse(page);
      if (!checked.success) {
        throw new ToolFailure(
          "execution_failure",
          `The inventory page failed its own schema: ${
            z.prettifyError(checked.error).slice(0, 500)
          }`,
        );
      }
      return {
        kind: "evidence",
        draft: {
          subject: target.subject,
          provider: ARTIFACT_GRAPH_PROVIDER,
          operation: INVENTORY_ARTIFACT,
          parameters: call.parameters,
          normalized_result: page,
          limitations: [
            ...(snapshot.manifest.complete ? [] : [
              "The inventory does not cover the whole artifact; see the manifest's complete flag and these limitations.",
            ]),
            ...snapshot.limitations.slice(0, 100),
          ],
          locations: [{ kind: "artifact-path", path: target.realPath }],
          transferred: true,
        },
      };
    },
  });
}
