/**
 * Matching the procedures of two versions of one binary. Named procedures
 * pair by name; unnamed ones (stripped static functions known only from
 * unwind tables or call targets) pair by anchors: the strings they
 * reference, the named procedures they call and are called by, their
 * position between procedures already paired (the order of unwind entries),
 * and a digest of their instructions. Pairs are accepted only when each is
 * the other's clear best, in rounds, so that every accepted pair becomes an
 * anchor for its callers, callees and neighbours. Each pair says which
 * anchors matched and how much confidence they give.
 *
 * @module
 */

import type { ProcedureProfile, ProfileSet } from "./procedure_profiles.ts";
import { groupByName, pairUniqueNames } from "./name_pairs.ts";

/** Kinds of evidence that pair two procedures. */
export type AnchorKind = "name" | "digest" | "strings" | "callees" | "callers" | "order";

/** One kind of anchor two paired procedures share. */
export interface MatchAnchor {
  kind: AnchorKind;
  /** What matched: the name, shared strings or callees, or the neighbours in order. */
  detail: string[];
}

/** How far a pairing can be trusted. */
export type MatchConfidence = "high" | "medium" | "low";

/** Two procedures taken to be one across versions. */
export interface ProcedureMatch {
  left: ProcedureProfile;
  right: ProcedureProfile;
  confidence: MatchConfidence;
  /** The anchor score behind the confidence (names score 10). */
  score: number;
  anchors: MatchAnchor[];
  /** The size differs, or both were decoded and their instruction digests differ. */
  changed: boolean;
}

/** Every pairing of two documents' procedures. */
export interface ProcedureMatching {
  matches: ProcedureMatch[];
  unmatchedLeft: ProcedureProfile[];
  unmatchedRight: ProcedureProfile[];
  /** Names at more than one address on a side: left out of the pairing. */
  ambiguousNames: number;
}

/** Least score that pairs two unnamed procedures. */
const ACCEPT = 2.5;
/** Least lead of the best candidate over the second, on both sides. */
const MARGIN = 0.75;
/** Most rounds of pairing. */
const ROUNDS = 8;
/** Widest gap between paired neighbours whose members are all candidates by order. */
const GAP_CANDIDATES = 64;
/** Most items named in one anchor's detail. */
const DETAIL_CAP = 5;
/** The call relations that anchor a pairing, in the order their anchors are listed. */
const CALL_ANCHORS = ["callees", "callers"] as const;

/** Pairs the procedures of two versions. */
export function matchProcedures(left: ProfileSet, right: ProfileSet): ProcedureMatching {
  const partnerOfLeft = new Map<number, number>();
  const partnerOfRight = new Map<number, number>();
  const matches: ProcedureMatch[] = [];
  const accept = (
    l: ProcedureProfile,
    r: ProcedureProfile,
    score: number,
    anchors: MatchAnchor[],
  ): void => {
    partnerOfLeft.set(l.index, r.index);
    partnerOfRight.set(r.index, l.index);
    const kinds = anchors.filter((a) => a.kind !== "order").length;
    const confidence: MatchConfidence = anchors.some((a) => a.kind === "name") ||
        (score >= 4 && kinds >= 2) || (score >= 5)
      ? "high"
      : score >= 3.5 && kinds >= 1
      ? "medium"
      : "low";
    matches.push({
      left: l,
      right: r,
      confidence,
      score: Math.round(score * 100) / 100,
      anchors,
      changed: l.size !== r.size ||
        (l.digest !== null && r.digest !== null && l.digest !== r.digest),
    });
  };

  // Names first: a name unique on both sides pairs.
  const byName = pairUniqueNames(groupByName(left.profiles), groupByName(right.profiles));
  const ambiguousNames = byName.ambiguous;
  for (const { name, left: l, right: r } of byName.pairs) {
    accept(l, r, 10, [{ kind: "name", detail: [name] }]);
  }

  // Labels comparable across sides: a name, or the pair an unnamed procedure joined.
  const leftLabel = (i: number): string | null => {
    const p = left.profiles[i]!;
    if (p.name) return p.name;
    return partnerOfLeft.has(i) ? `#${i}` : null;
  };
  const rightLabel = (i: number): string | null => {
    const p = right.profiles[i]!;
    if (p.name) return p.name;
    const partner = partnerOfRight.get(i);
    return partner === undefined ? null : `#${partner}`;
  };
  const display = (label: string, set: ProfileSet, side: "left" | "right"): string => {
    if (!label.startsWith("#")) return label;
    const leftIndex = Number(label.slice(1));
    const index = side === "left" ? leftIndex : partnerOfLeft.get(leftIndex)!;
    return `sub_${set.profiles[index]!.address.toString(16)}`;
  };
  const calleeLabels = (p: ProcedureProfile, label: typeof leftLabel) => {
    const labels = new Set(p.callees);
    for (const i of p.unnamedCallees) {
      const l = label(i);
      if (l) labels.add(l);
    }
    return labels;
  };
  const callerLabels = (set: ProfileSet, p: ProcedureProfile, label: typeof leftLabel) => {
    const labels = new Set<string>();
    for (const i of set.callers.get(p.index) ?? []) {
      const l = label(i);
      if (l) labels.add(l);
    }
    return labels;
  };

  for (let round = 0; round < ROUNDS; round++) {
    const openLeft = left.profiles.filter((p) => !p.name && !partnerOfLeft.has(p.index));
    const openRight = right.profiles.filter((p) => !p.name && !partnerOfRight.has(p.index));
    if (openLeft.length === 0 || openRight.length === 0) break;
    const features = (
      set: ProfileSet,
      open: ProcedureProfile[],
      label: typeof leftLabel,
    ) =>
      new Map(open.map((p) => [p.index, {
        callees: calleeLabels(p, label),
        callers: callerLabels(set, p, label),
      }]));
    const leftFeatures = features(left, openLeft, leftLabel);
    const rightFeatures = features(right, openRight, rightLabel);
    // How many open procedures on each side reference a string, have a digest.
    const tally = (open: ProcedureProfile[], key: (p: ProcedureProfile) => Iterable<string>) => {
      const counts = new Map<string, number>();
      for (const p of open) for (const k of key(p)) counts.set(k, (counts.get(k) ?? 0) + 1);
      return counts;
    };
    const stringsOf = (p: ProcedureProfile) => p.strings;
    const digestOf = (p: ProcedureProfile) => (p.digest === null ? [] : [p.digest]);
    const leftStringCounts = tally(openLeft, stringsOf);
    const rightStringCounts = tally(openRight, stringsOf);
    const leftDigestCounts = tally(openLeft, digestOf);
    const rightDigestCounts = tally(openRight, digestOf);
    // Inverted indexes of the open right procedures.
    const index = (key: (p: ProcedureProfile) => Iterable<string>) => {
      const map = new Map<string, number[]>();
      for (const p of openRight) {
        for (const k of key(p)) {
          const list = map.get(k) ?? [];
          list.push(p.index);
          map.set(k, list);
        }
      }
      return map;
    };
    const byString = index(stringsOf);
    const byDigest = index(digestOf);
    const byCallee = index((p) => rightFeatures.get(p.index)!.callees);
    const byCaller = index((p) => rightFeatures.get(p.index)!.callers);
    // The paired neighbours of each left procedure, in one pass each way.
    const leftCount = left.profiles.length;
    const before = new Int32Array(leftCount);
    const after = new Int32Array(leftCount);
    for (let i = 0, last = -1; i < leftCount; i++) {
      before[i] = last;
      if (partnerOfLeft.has(i)) last = i;
    }
    for (let i = leftCount - 1, next = -1; i >= 0; i--) {
      after[i] = next;
      if (partnerOfLeft.has(i)) next = i;
    }
    // Open procedures per left gap (keyed by the paired neighbour before it), in order.
    const leftGaps = new Map<number, number[]>();
    const rankInGap = new Map<number, number>();
    for (const p of openLeft) {
      const gap = leftGaps.get(before[p.index]!) ?? [];
      rankInGap.set(p.index, gap.length);
      gap.push(p.index);
      leftGaps.set(before[p.index]!, gap);
    }
    // Open right procedures below each index, to size a right gap without walking it.
    const rightOpenBelow = new Int32Array(right.profiles.length + 1);
    const rightOpen = new Set(openRight.map((p) => p.index));
    for (let r = 0; r < right.profiles.length; r++) {
      rightOpenBelow[r + 1] = rightOpenBelow[r]! + (rightOpen.has(r) ? 1 : 0);
    }

    const scored: Array<{ l: number; r: number; score: number; anchors: MatchAnchor[] }> = [];
    for (const l of openLeft) {
      const lf = leftFeatures.get(l.index)!;
      const candidates = new Set<number>();
      // Keys shared by many procedures (a common callee, a source file name) score but do
      // not propose candidates.
      const add = (list: number[] | undefined) => {
        if (list && list.length <= GAP_CANDIDATES) { for (const r of list) candidates.add(r); }
      };
      for (const s of l.strings) add(byString.get(s));
      if (l.digest !== null) add(byDigest.get(l.digest));
      for (const c of lf.callees) add(byCallee.get(c));
      for (const c of lf.callers) add(byCaller.get(c));
      const prior = before[l.index]!;
      const next = after[l.index]!;
      const from = prior < 0 ? -1 : partnerOfLeft.get(prior)!;
      const to = next < 0 ? right.profiles.length : partnerOfLeft.get(next)!;
      const leftGap = leftGaps.get(prior)!;
      const rightGapSize = from < to ? rightOpenBelow[to]! - rightOpenBelow[from + 1]! : 0;
      if (rightGapSize <= GAP_CANDIDATES) {
        for (let r = from + 1; r < to; r++) if (rightOpen.has(r)) candidates.add(r);
      }
      // Gaps of equal size: the procedure at the same rank on the right.
      const sameRank = leftGap.length === rightGapSize
        ? openRight[rightOpenBelow[from + 1]! + rankInGap.get(l.index)!]?.index
        : undefined;
      if (sameRank !== undefined) candidates.add(sameRank);
      const neighbours = [
        prior < 0 ? "start" : display(leftLabel(prior) ?? "", left, "left"),
        next < 0 ? "end" : display(leftLabel(next) ?? "", left, "left"),
      ];
      for (const r of candidates) {
        const rp = right.profiles[r]!;
        const rf = rightFeatures.get(r)!;
        const anchors: MatchAnchor[] = [];
        let score = 0;
        if (l.digest !== null && l.digest === rp.digest) {
          const unique = leftDigestCounts.get(l.digest) === 1 &&
            rightDigestCounts.get(l.digest) === 1;
          score += unique ? 4 : 2;
          anchors.push({
            kind: "digest",
            detail: [
              unique ? "identical instructions, unique on both sides" : "identical instructions",
            ],
          });
        }
        const sharedStrings = [...l.strings].filter((s) => rp.strings.has(s));
        if (sharedStrings.length > 0) {
          const union = new Set([...l.strings, ...rp.strings]).size;
          score += 4 * sharedStrings.length / union;
          if (
            sharedStrings.some((s) =>
              leftStringCounts.get(s) === 1 && rightStringCounts.get(s) === 1
            )
          ) score += 1;
          anchors.push({ kind: "strings", detail: sharedStrings.sort().slice(0, DETAIL_CAP) });
        }
        const shared = (a: Set<string>, b: Set<string>) => [...a].filter((x) => b.has(x));
        for (const kind of CALL_ANCHORS) {
          const sharedCalls = shared(lf[kind], rf[kind]);
          if (sharedCalls.length === 0) continue;
          score += 2 * sharedCalls.length / new Set([...lf[kind], ...rf[kind]]).size;
          anchors.push({
            kind,
            detail: sharedCalls.sort().slice(0, DETAIL_CAP).map((c) => display(c, left, "left")),
          });
        }
        if (r > from && r < to) {
          score += 1;
          const sole = leftGap.length === 1 && rightGapSize === 1;
          if (sole) score += 2;
          else if (r === sameRank) score += 1;
          anchors.push({
            kind: "order",
            detail: [
              sole
                ? `the only unpaired procedure between ${neighbours[0]} and ${neighbours[1]}`
                : `between ${neighbours[0]} and ${neighbours[1]}`,
            ],
          });
        }
        if (score > 0) scored.push({ l: l.index, r, score, anchors });
      }
    }
    // Mutual clear best: the pair leads every other candidate of either side by MARGIN.
    const bestOf = (key: "l" | "r") => {
      const best = new Map<number, { first: number; second: number }>();
      for (const s of scored) {
        const entry = best.get(s[key]) ?? { first: 0, second: 0 };
        if (s.score > entry.first) {
          entry.second = entry.first;
          entry.first = s.score;
        } else if (s.score > entry.second) entry.second = s.score;
        best.set(s[key], entry);
      }
      return best;
    };
    const bestLeft = bestOf("l");
    const bestRight = bestOf("r");
    let accepted = 0;
    scored.sort((a, b) => b.score - a.score || a.l - b.l || a.r - b.r);
    for (const s of scored) {
      if (s.score < ACCEPT || partnerOfLeft.has(s.l) || partnerOfRight.has(s.r)) continue;
      const bl = bestLeft.get(s.l)!;
      const br = bestRight.get(s.r)!;
      if (s.score < bl.first || s.score < br.first) continue;
      if (s.score - bl.second < MARGIN || s.score - br.second < MARGIN) continue;
      accept(left.profiles[s.l]!, right.profiles[s.r]!, s.score, s.anchors);
      accepted++;
    }
    if (accepted === 0) break;
  }
  matches.sort((a, b) => a.left.index - b.left.index);
  return {
    matches,
    unmatchedLeft: left.profiles.filter((p) => !partnerOfLeft.has(p.index)),
    unmatchedRight: right.profiles.filter((p) => !partnerOfRight.has(p.index)),
    ambiguousNames,
  };
}
