/**
 * How the session tools describe the open target, the artifact target and
 * the provider binding (the shapes of `schemas/session_results.ts`).
 *
 * @module
 */

import type { z } from "zod";
import type { ArtifactTarget } from "../artifacts/target.ts";
import { needsPreparation } from "../analysis/discovery.ts";
import type { BinaryImage } from "../formats/binary_image.ts";
import { isDeferred } from "../formats/deferred_image.ts";
import type { Binding } from "../providers/provider.ts";
import type {
  artifactTargetSchema,
  bindingSchema,
  targetSchema,
} from "../schemas/session_results.ts";
import type { BinarySession, OpenOutcome } from "../session/binary_session.ts";
import type { LoadedTarget } from "../session/target.ts";
import type { AppsContext } from "./apps_context.ts";

/** The binary target, described from the session's current document. */
export function describeTarget(
  session: BinarySession,
  target: LoadedTarget,
): z.output<typeof targetSchema> {
  const current = session.currentDocument;
  const image = target.documents.find((d) => d.document === current) ?? target.documents[0]!;
  return {
    path: target.requestedPath,
    real_path: target.realPath,
    name: target.name,
    size: target.size,
    sha256: target.sha256,
    format: target.format,
    documents: target.documents.map((d) => d.document),
    document: image.document,
    architecture: image.architecture,
    machine: image.machine,
    bits: image.bits,
    endianness: image.endianness,
    entry: image.entry === null ? null : `0x${image.entry.toString(16)}`,
    // Counting needs the full read (and sweep), which the open leaves to the first use.
    ...counts(
      session.isPrepared(image) || (!isDeferred(image) && !needsPreparation(image)) ? image : null,
    ),
    build_id: image.buildId,
    warnings: image.warnings.slice(0, 50),
    origin: target.origin.kind === "occurrence"
      ? {
        artifact_path: target.origin.artifactPath,
        artifact_sha256: target.origin.artifactSha256,
        occurrence_id: target.origin.occurrenceId,
        logical_path: target.origin.logicalPath,
        inventory_evidence_id: target.origin.inventoryEvidenceId,
      }
      : null,
  };
}

/** The counts of a document read in full, or nulls for one not read yet. */
function counts(
  image: BinaryImage | null,
): Pick<z.output<typeof targetSchema>, "procedure_count" | "import_count" | "export_count"> {
  return {
    procedure_count: image ? image.functions.length : null,
    import_count: image ? image.imports.length : null,
    export_count: image ? image.exports.length : null,
  };
}

/** The artifact target. */
export function describeArtifact(target: ArtifactTarget): z.output<typeof artifactTargetSchema> {
  return {
    path: target.requestedPath,
    real_path: target.realPath,
    name: target.name,
    kind: target.kind,
    format: target.format,
    size: target.size,
    sha256: target.sha256,
    retained_scans: target.snapshots.size,
  };
}

/** A binding as status and open_binary report it. */
export function bindingView(binding: Binding | null): z.output<typeof bindingSchema> | null {
  return binding
    ? {
      provider: binding.provider.identity,
      selection_source: binding.selectionSource,
      analysis_profile: binding.provider.profile(),
    }
    : null;
}

/** What open_binary reports for a binary target (the artifact target, if any, beside it). */
export interface OpenedBinary {
  action: OpenOutcome["action"];
  target: z.output<typeof targetSchema>;
  artifact_target: z.output<typeof artifactTargetSchema> | null;
  documents: string[];
  current_document: string | null;
  analysis_provider_binding: z.output<typeof bindingSchema> | null;
}

/** The result of open_binary for a binary target. */
export function openedBinary(
  context: AppsContext,
  outcome: OpenOutcome,
  action: OpenOutcome["action"],
): OpenedBinary {
  return {
    action,
    target: describeTarget(context.session, outcome.target),
    artifact_target: context.artifact ? describeArtifact(context.artifact) : null,
    documents: outcome.binding ? outcome.binding.provider.listDocuments(outcome.target) : [],
    current_document: context.session.currentDocument,
    analysis_provider_binding: bindingView(outcome.binding),
  };
}
