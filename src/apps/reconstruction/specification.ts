/**
 * A reconstruction specification: a finite, typed list of claims, each naming
 * one retained comparison record and the dimension it covers, and the digest
 * that identifies the specification.
 *
 * @module
 */

import { z } from "zod";
import { canonicalJson, sha256Hex } from "../../core/canonical_json.ts";
import { compareCodePoints } from "../../core/completion.ts";
import { DIMENSIONS } from "../capture/compare.ts";

/** Claim kinds and the dimensions each allows. */
export const CLAIM_DIMENSIONS = {
  behavioral: ["overall", ...DIMENSIONS],
  "structural-function": [
    "overall",
    "size",
    "instruction_sequence",
    "instruction_count",
    "callees",
    "referenced_strings",
    "basic_blocks",
  ],
  "structural-artifact": ["overall"],
} as const;

export type ClaimKind = keyof typeof CLAIM_DIMENSIONS;

const trimmed = (min: number, max: number) =>
  z.string().transform((s) => s.trim()).pipe(z.string().min(min).max(max));

/** One claim. */
export const claimSchema = z.strictObject({
  claim_id: z.string().regex(/^[A-Za-z][A-Za-z0-9._-]{0,99}$/).describe(
    "A unique id: a letter, then up to 99 letters, digits, '.', '_' or '-'.",
  ),
  title: trimmed(1, 500).describe("What the claim asserts, in words (1–500 characters)."),
  comparison_evidence_id: z.string().regex(/^ev_[0-9a-f]{64}$/).describe(
    "The retained comparison Evidence the claim is checked against.",
  ),
  kind: z.enum(["behavioral", "structural-function", "structural-artifact"]).describe(
    "behavioral (compare_process_captures), structural-function (compare_functions) or structural-artifact (compare_artifacts).",
  ),
  dimension: z.string().min(1).max(64).describe(
    "overall, or a dimension the kind allows (see the tool description).",
  ),
}).superRefine((claim, context) => {
  const allowed = CLAIM_DIMENSIONS[claim.kind] as readonly string[];
  if (!allowed.includes(claim.dimension)) {
    context.addIssue({
      code: "custom",
      message: `dimension ${claim.dimension} is not one of ${allowed.join(", ")} for ${claim.kind}`,
      path: ["dimension"],
    });
  }
});

/** A finite reconstruction specification. */
export const specificationSchema = z.strictObject({
  schema_version: z.literal(1).describe("Always 1."),
  name: trimmed(1, 200).describe("The specification's name (1–200 characters)."),
  claims: z.array(claimSchema).min(1).max(100).describe("1 to 100 claims."),
}).superRefine((spec, context) => {
  const ids = new Set<string>();
  const selectors = new Set<string>();
  for (const [index, claim] of spec.claims.entries()) {
    if (ids.has(claim.claim_id)) {
      context.addIssue({
        code: "custom",
        message: `duplicate claim_id ${claim.claim_id}`,
        path: ["claims", index],
      });
    }
    ids.add(claim.claim_id);
    const selector = `${claim.kind}:${claim.comparison_evidence_id}:${claim.dimension}`;
    if (selectors.has(selector)) {
      context.addIssue({
        code: "custom",
        message: `duplicate selector ${selector}`,
        path: ["claims", index],
      });
    }
    selectors.add(selector);
  }
});
export type ReconstructionSpecification = z.infer<typeof specificationSchema>;
export type Claim = ReconstructionSpecification["claims"][number];

/** The digest of a specification, claims in claim_id order. */
export function specificationDigest(spec: ReconstructionSpecification): string {
  const claims = [...spec.claims].sort((a, b) => compareCodePoints(a.claim_id, b.claim_id));
  return sha256Hex(canonicalJson({ ...spec, claims }));
}
