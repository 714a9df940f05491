/**
 * `open_binary`: opens, reopens or switches the target — a binary file, a
 * directory or archive, or a member of an inventoried artifact read back in
 * memory.
 *
 * @module
 */

import { z } from "zod";
import { CHANGES_SESSION, defineTool, type ToolDefinition } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import { openArtifact, resolveTargetPath } from "../artifacts/target.ts";
import {
  readAnalysisSnapshot,
  restoreAnalysisSnapshot,
  type RestoredSnapshot,
} from "../context/analysis_snapshot.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { ARTIFACT_GRAPH_PROVIDER, readOccurrence } from "../context/artifact_access.ts";
import { describeArtifact, openedBinary } from "../context/describe.ts";
import { artifactTargetSchema, bindingSchema, targetSchema } from "../schemas/session_results.ts";
import type { OpenOutcome } from "../session/binary_session.ts";
import { checkProviderId } from "../providers/provider.ts";
import { OPEN_BINARY } from "../tool_names.ts";

/** Opens a target under an allowed root, reporting progress. */
export function openBinaryTool(context: AppsContext): ToolDefinition {
  const { session, services } = context;
  return defineTool({
    name: OPEN_BINARY,
    toolset: "session",
    description:
      "Open a target under an allowed root: an ELF, PE, Mach-O (thin or universal) or WebAssembly file as a binary target for static analysis, or a directory or archive (tar, .deb/ar, zip family, gzip/xz/zstd/bzip2) as an artifact target for inventory_artifact. A self-extracting executable (a zip after its image) opens as a binary; with provider_id rea-artifact-graph it opens as the zip it carries. Or pass occurrence_id instead of path to open a file occurrence of a retained inventory as the binary target: it is read back into memory from its artifact (nothing is extracted to disk), checked against the inventoried SHA-256, and the artifact target stays active beside it. Reopening the same target keeps its state; another one switches, keeping the session's Evidence. Opening records the content identity (a directory's is the digest of every file in it, so opening one reads it all) and reports progress; a binary's symbol tables, function tables, imports and exports are read on first use (list_procedures, binary_overview and the other analysis tools), so its counts are null until then. Refuses relative paths, paths outside the roots (also via symlinks), devices and unsupported formats.",
    input: z.strictObject({
      path: z.string().min(1).max(4096).optional().describe(
        "Absolute path of the file or directory to open. Give this or occurrence_id.",
      ),
      occurrence_id: z.string().min(1).max(68).optional().describe(
        "An occurrence_id from a retained inventory_artifact page: open that member of the artifact as the binary target, in memory. Give this or path.",
      ),
      provider_id: z.string().min(1).max(64).optional().describe(
        "auto (default) or a provider id from binary_session; an explicit id never falls back. With a directory or archive, it applies to the members opened from it. rea-artifact-graph opens the path as an artifact target: a self-extracting executable as the zip it carries.",
      ),
      snapshot_path: z.string().min(1).max(4096).optional().describe(
        "A snapshot close_binary saved (under an allowed root): its Evidence and unknowns are checked, then restored into the session after the target opens.",
      ),
    }),
    result: z.object({
      action: z.enum(["opened", "switched", "reopened"]),
      target: targetSchema.nullable().describe(
        "The binary target, or null for an artifact target.",
      ),
      artifact_target: artifactTargetSchema.nullable().describe(
        "The artifact target (directory or archive); beside a binary target only when the binary is one of its occurrences.",
      ),
      documents: z.array(z.string()),
      current_document: z.string().nullable(),
      analysis_provider_binding: bindingSchema.nullable(),
      snapshot: z.object({
        path: z.string(),
        bundle_digest: z.string(),
        records: z.number().int(),
        new_records: z.number().int(),
        unknown_revisions: z.number().int(),
      }).optional().describe("What snapshot_path restored."),
    }),
    ...CHANGES_SESSION,
    run: async (args, call) => {
      // Checked before anything opens, restored after: a bad snapshot changes nothing.
      const saved = args.snapshot_path === undefined
        ? null
        : await readAnalysisSnapshot(context, args.snapshot_path);
      const restored = async <T extends object>(
        result: T,
      ): Promise<{ kind: "result"; result: T & { snapshot?: RestoredSnapshot } }> => ({
        kind: "result",
        result: saved
          ? { ...result, snapshot: await restoreAnalysisSnapshot(context, saved) }
          : result,
      });
      const { path, occurrence_id: occurrenceId, provider_id: provider } = args;
      if (occurrenceId !== undefined && path === undefined) {
        // The artifact's size is not known here: progress counts bytes read.
        const outcome = await session.open(
          () =>
            readOccurrence(context, occurrenceId, {
              signal: call.signal,
              onProgress: (bytes, entries) =>
                call.progress(
                  bytes,
                  undefined,
                  `reading the artifact back: ${bytes} bytes, ${entries} entries`,
                ),
            }),
          // A provider_id given with the archive applies to the members opened from it.
          provider ?? context.artifactProvider ?? undefined,
          { signal: call.signal },
        );
        // The artifact target stays active beside its member.
        return restored(openedBinary(context, outcome, outcome.action));
      }
      if (path === undefined || occurrenceId !== undefined) {
        throw new ToolFailure(
          "invalid_request",
          "Pass exactly one of path (a file or artifact under a root) and occurrence_id (a member of an inventoried artifact).",
        );
      }
      // The artifact graph as provider: the path is an artifact, a self-extractor its zip.
      const asArtifact = provider === ARTIFACT_GRAPH_PROVIDER.id;
      const resolved = await resolveTargetPath(path, services.roots, {
        executableArchive: asArtifact,
      });
      if (asArtifact && resolved.kind === "file") {
        throw new ToolFailure(
          "invalid_request",
          `provider_id ${ARTIFACT_GRAPH_PROVIDER.id} opens a directory or archive, and ${path} is ${
            resolved.sniffed.executableFormat
              ? "an executable with no zip after it"
              : "no archive this reader knows"
          }.`,
          { action: "Open it without provider_id, or pass the path of a directory or archive." },
        );
      }
      if (resolved.kind !== "file") {
        // Kept for the members later opened from this artifact (occurrence_id).
        if (provider !== undefined && !asArtifact) checkProviderId(session.candidates, provider);
        const opened = await openArtifact(resolved, {
          limits: context.ceilings,
          signal: call.signal,
          onProgress: (bytes, entries) =>
            call.progress(bytes, undefined, `hashed ${bytes} bytes, ${entries} entries`),
        });
        const previous = context.artifact;
        const same = previous !== null && previous.realPath === opened.realPath &&
          previous.sha256 === opened.sha256;
        const hadTarget = previous !== null || session.target !== null;
        await session.close();
        if (!same) context.artifact = opened;
        context.artifactProvider = asArtifact ? null : provider ?? null;
        const action: OpenOutcome["action"] = same ? "reopened" : hadTarget ? "switched" : "opened";
        return restored({
          action,
          target: null,
          artifact_target: describeArtifact(context.artifact!),
          documents: [],
          current_document: null,
          analysis_provider_binding: null,
        });
      }
      const hadArtifact = context.artifact !== null;
      const outcome = await session.open(path, provider, {
        signal: call.signal,
        // Reading (and hashing) is the whole open: the rest is read on first use.
        onProgress: (read, size) =>
          call.progress(
            Math.floor((100 * read) / Math.max(1, size)),
            100,
            `read ${read} of ${size} bytes`,
          ),
      });
      context.artifact = null;
      const opened = openedBinary(
        context,
        outcome,
        hadArtifact && outcome.action === "opened" ? "switched" : outcome.action,
      );
      if (resolved.sniffed.flavour === "self-extractor" && opened.target !== null) {
        opened.target.warnings = [
          ...opened.target.warnings,
          `A zip archive follows the executable (a self-extractor): open_binary with provider_id ${ARTIFACT_GRAPH_PROVIDER.id} opens it as that archive for inventory_artifact.`,
        ];
      }
      return restored(opened);
    },
  });
}
