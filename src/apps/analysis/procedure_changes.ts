/**
 * The procedure-level difference between two versions of one binary, as
 * `compare_artifacts` reports it: named procedures added, removed, resized
 * and recoded (same size, different instructions), and unnamed procedures
 * paired across the versions by anchors, each changed pair listed with its
 * confidence and the anchors that paired it.
 *
 * @module
 */

import { compareCodePoints } from "../../core/completion.ts";
import type { BinaryImage } from "../formats/binary_image.ts";
import { compareProcedures, SYMBOL_LIST_CAP, type SymbolSummary } from "../artifacts/compare.ts";
import { hex } from "./dossier.ts";
import {
  type MatchAnchor,
  type MatchConfidence,
  matchProcedures,
  type ProcedureMatching,
} from "./procedure_matching.ts";
import { profileProcedures } from "./procedure_profiles.ts";
import { type AnalysisControl, ProgramAnalysis } from "./program.ts";

/** One pair of unnamed procedures that differs between the versions. */
export interface UnnamedChange {
  left_address: string;
  right_address: string;
  left_size: number;
  right_size: number;
  /** The instruction digests differ (addresses masked). */
  code_changed: boolean;
  confidence: MatchConfidence;
  score: number;
  anchors: MatchAnchor[];
  /** Strings only the right (newer) version references. */
  strings_gained: string[];
  /** Strings only the left (older) version references. */
  strings_lost: string[];
  /** Named callees only the right version calls. */
  callees_gained: string[];
  /** Named callees only the left version calls. */
  callees_lost: string[];
}

/** Unnamed procedures paired across versions. */
export interface UnnamedSummary {
  left_unnamed: number;
  right_unnamed: number;
  matched: number;
  by_confidence: Record<MatchConfidence, number>;
  changed: UnnamedChange[];
  changed_count: number;
  /** Addresses of unnamed procedures with no partner (likely added or removed). */
  unmatched_left: string[];
  unmatched_right: string[];
  unmatched_left_count: number;
  unmatched_right_count: number;
  truncated: boolean;
}

/** A named procedure of equal size whose instructions differ. */
export interface RecodedProcedure {
  name: string;
  size: number;
}

/** The whole procedure summary of one changed binary. */
export interface ProcedureChanges extends SymbolSummary {
  /** Named procedures of unchanged size whose instructions differ; null when not decoded. */
  recoded: RecodedProcedure[] | null;
  recoded_count: number;
  /** Unnamed procedures paired by anchors; null when the code was not decoded. */
  unnamed: UnnamedSummary | null;
  limitations: string[];
}

/** Most strings or callees listed as gained or lost per pair. */
const DIFFERENCE_CAP = 20;

/** What `a` holds and `b` does not, sorted, at most {@linkcode DIFFERENCE_CAP}. */
function onlyIn(a: ReadonlySet<string>, b: ReadonlySet<string>): string[] {
  return [...a].filter((x) => !b.has(x)).sort(compareCodePoints).slice(0, DIFFERENCE_CAP);
}

/** Compares the procedures of two versions of a binary (each a list of documents). */
export async function compareBinaryProcedures(
  left: readonly BinaryImage[],
  right: readonly BinaryImage[],
  control: AnalysisControl = {},
): Promise<ProcedureChanges> {
  const prefixed = (images: readonly BinaryImage[]) =>
    images.flatMap((image) =>
      image.functions.map((f) => ({
        name: images.length > 1 ? `${image.document}:${f.name}` : f.name,
        size: Number(f.size),
      }))
    );
  const named = compareProcedures(prefixed(left), prefixed(right));
  const limitations: string[] = [];
  const pairs: Array<{ prefix: string; matching: ProcedureMatching }> = [];
  const paired = left.length === right.length &&
    left.every((image, i) => image.architecture === right[i]!.architecture);
  if (!paired) {
    limitations.push(
      "The two versions hold different documents (slices or architectures): unnamed procedures were not paired.",
    );
  } else {
    for (let i = 0; i < left.length; i++) {
      const a = new ProgramAnalysis(left[i]!);
      const b = new ProgramAnalysis(right[i]!);
      if (!a.decodable || !b.decodable) {
        limitations.push(
          `${left[i]!.architecture} code is not disassembled: unnamed procedures were not paired.`,
        );
        continue;
      }
      const profilesA = await profileProcedures(a, {}, control);
      const profilesB = await profileProcedures(b, {}, control);
      limitations.push(...profilesA.limitations, ...profilesB.limitations);
      pairs.push({
        prefix: left.length > 1 ? `${left[i]!.document}:` : "",
        matching: matchProcedures(profilesA, profilesB),
      });
    }
  }
  if (pairs.length === 0) {
    return { ...named, recoded: null, recoded_count: 0, unnamed: null, limitations };
  }
  const recoded: RecodedProcedure[] = [];
  const changed: UnnamedChange[] = [];
  const unmatchedLeft: string[] = [];
  const unmatchedRight: string[] = [];
  const byConfidence: Record<MatchConfidence, number> = { high: 0, medium: 0, low: 0 };
  let matched = 0;
  for (const { prefix, matching } of pairs) {
    for (const m of matching.matches) {
      if (m.left.name) {
        if (m.changed && m.left.size === m.right.size) {
          recoded.push({ name: prefix + m.left.name, size: m.left.size });
        }
        continue;
      }
      matched++;
      byConfidence[m.confidence]++;
      if (!m.changed) continue;
      changed.push({
        left_address: prefix + hex(m.left.address),
        right_address: prefix + hex(m.right.address),
        left_size: m.left.size,
        right_size: m.right.size,
        code_changed: m.left.digest !== null && m.right.digest !== null &&
          m.left.digest !== m.right.digest,
        confidence: m.confidence,
        score: m.score,
        anchors: m.anchors,
        strings_gained: onlyIn(m.right.strings, m.left.strings),
        strings_lost: onlyIn(m.left.strings, m.right.strings),
        callees_gained: onlyIn(m.right.callees, m.left.callees),
        callees_lost: onlyIn(m.left.callees, m.right.callees),
      });
    }
    for (const p of matching.unmatchedLeft) {
      if (!p.name) unmatchedLeft.push(prefix + hex(p.address));
    }
    for (const p of matching.unmatchedRight) {
      if (!p.name) unmatchedRight.push(prefix + hex(p.address));
    }
  }
  const cap = <T>(list: T[]): T[] => list.slice(0, SYMBOL_LIST_CAP);
  return {
    ...named,
    recoded: cap(recoded),
    recoded_count: recoded.length,
    unnamed: {
      left_unnamed: matched + unmatchedLeft.length,
      right_unnamed: matched + unmatchedRight.length,
      matched,
      by_confidence: byConfidence,
      changed: cap(changed),
      changed_count: changed.length,
      unmatched_left: cap(unmatchedLeft),
      unmatched_right: cap(unmatchedRight),
      unmatched_left_count: unmatchedLeft.length,
      unmatched_right_count: unmatchedRight.length,
      truncated: changed.length > SYMBOL_LIST_CAP || unmatchedLeft.length > SYMBOL_LIST_CAP ||
        unmatchedRight.length > SYMBOL_LIST_CAP,
    },
    limitations,
  };
}
