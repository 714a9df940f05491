/**
 * The apps workbench's Evidence conventions: its subjects (binaries,
 * artifacts, their captures), its default predicate, and record creation with
 * that default.
 *
 * @module
 */

import {
  createEvidence as createRecord,
  type EvidenceDraft,
  type EvidenceRecord,
} from "../core/evidence.ts";

/** The predicate of a static-analysis observation (REA's). */
export const ANALYSIS_PREDICATE = "rea.analysis/v2";

/** Formats an apps subject may have. */
export type SubjectFormat =
  | "elf"
  | "pe"
  | "mach-o"
  | "mach-o-universal"
  | "wasm"
  | "zip"
  | "tar"
  | "ar"
  | "deb"
  | "gzip"
  | "xz"
  | "zstd"
  | "directory"
  | "file"
  | "unknown";

/** A binary or artifact as the subject of an observation. */
export interface BinarySubject {
  /** The file's base name. */
  name: string;
  /** The content digest that identifies the subject. */
  digest: { sha256: string };
  /** The file format. */
  format: SubjectFormat;
  /** The processor architecture, when known. */
  architecture: "x86" | "x86_64" | "arm" | "arm64" | null;
  /** Where the file was read from (not part of the id). */
  local_path: string;
  /** No further identity facts beyond these. */
  [fact: string]: string | null | { sha256: string } | undefined;
}

/** An apps Evidence draft: the predicate defaults to {@linkcode ANALYSIS_PREDICATE}. */
export type AppsEvidenceDraft = Omit<EvidenceDraft, "predicate_type"> & {
  /** @default "rea.analysis/v2" */
  predicate_type?: string;
};

/** Builds a record from an apps draft (predicate `rea.analysis/v2` unless given). */
export function createEvidence(draft: AppsEvidenceDraft): Promise<EvidenceRecord> {
  return createRecord({ ...draft, predicate_type: draft.predicate_type ?? ANALYSIS_PREDICATE });
}
