/**
 * `compare_functions`: two retained dossiers compared.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import { ToolFailure } from "../../core/errors.ts";
import type { EvidenceRecord } from "../../core/evidence.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { compareFunctionsResultSchema } from "../schemas/analysis_results.ts";
import { limitField, offsetField, unknownRegistryApprovedField } from "../schemas/inputs.ts";
import { ANALYZE_FUNCTION, COMPARE_FUNCTIONS } from "../tool_names.ts";

/** The parts of a retained dossier that comparison reads. */
interface Dossier {
  procedure?: {
    size?: number | null;
    address?: string;
    name?: string;
    end?: string;
    extent?: string;
  };
  fingerprint?: { mnemonics_sha256?: string; instruction_count?: number };
  instruction_scan?: { truncated?: boolean };
  /** Null when the provider does not report the collection. */
  callees?: { items: { name?: string; address?: string }[]; truncated?: boolean } | null;
  referenced_strings?:
    | { items: { value?: string; address?: string }[]; truncated?: boolean }
    | null;
  basic_blocks?: { total?: number | null } | null;
}

/**
 * A dossier's procedure size: the recorded size, or else its extent up to the
 * next known start (Mach-O function starts carry no sizes); null when neither
 * is known (an extent cut by a byte cap is not a size).
 */
function sizeOf(dossier: Dossier): { size: number | null; fromExtent: boolean } {
  const procedure = dossier.procedure;
  if (typeof procedure?.size === "number") return { size: procedure.size, fromExtent: false };
  if (procedure?.extent !== "next-function" || !procedure.address || !procedure.end) {
    return { size: null, fromExtent: false };
  }
  try {
    const size = Number(BigInt(procedure.end) - BigInt(procedure.address));
    return size > 0 ? { size, fromExtent: true } : { size: null, fromExtent: false };
  } catch {
    return { size: null, fromExtent: false };
  }
}

/** Compares two retained dossiers dimension by dimension. */
export function compareFunctionsTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: COMPARE_FUNCTIONS,
    toolset: "static",
    description:
      "Compare two retained analyze_function Evidence records (from this target or another opened earlier in the session) dimension by dimension: size, instruction sequence, callees, referenced strings, basic blocks. Both must use identical limits; a truncated side, a dimension a provider does not report, and the instruction sequence of dossiers from two different providers are unknown.",
    input: z.strictObject({
      left_evidence_id: z.string().regex(/^ev_[0-9a-f]{64}$/).optional().describe(
        "An analyze_function Evidence id (or give left_evidence_ids).",
      ),
      right_evidence_id: z.string().regex(/^ev_[0-9a-f]{64}$/).optional().describe(
        "Another analyze_function Evidence id (or give right_evidence_ids).",
      ),
      left_evidence_ids: z.array(z.string().regex(/^ev_[0-9a-f]{64}$/)).min(1).max(100).optional()
        .describe(
          "REA's form: the analyze_function pages of the left procedure; their callees and referenced strings are compared together.",
        ),
      right_evidence_ids: z.array(z.string().regex(/^ev_[0-9a-f]{64}$/)).min(1).max(100)
        .optional().describe("REA's form: the analyze_function pages of the right procedure."),
      offset: offsetField.describe(
        "Index of the first dimension to return.",
      ),
      limit: limitField(100, 100).describe(
        "Dimensions per page (1 to 100); the verdict always covers every dimension.",
      ),
      unknown_registry_approved: unknownRegistryApprovedField,
    }),
    result: compareFunctionsResultSchema,
    ...RECORDS_EVIDENCE,
    run: (args) => {
      const pick = (id: string): EvidenceRecord => {
        const record = context.ledger.get(id);
        if (!record) {
          throw new ToolFailure(
            "invalid_request",
            `Evidence ${id} is not retained in this session.`,
            {
              action:
                "Call analyze_function for the procedure, then pass the evidence_id it returns.",
            },
          );
        }
        if (record.operation !== ANALYZE_FUNCTION) {
          throw new ToolFailure(
            "invalid_request",
            `Evidence ${id} records ${record.operation}, not analyze_function.`,
          );
        }
        return record;
      };
      const side = (one: string | undefined, pages: string[] | undefined, name: string) => {
        if (one !== undefined && pages !== undefined && !pages.includes(one)) {
          throw new ToolFailure(
            "invalid_request",
            `${name}_evidence_id is not among ${name}_evidence_ids.`,
            { action: `Pass ${name}_evidence_id or ${name}_evidence_ids.` },
          );
        }
        const ids = pages ?? (one === undefined ? [] : [one]);
        if (ids.length === 0) {
          throw new ToolFailure(
            "invalid_request",
            `Pass ${name}_evidence_id (or REA's ${name}_evidence_ids): the analyze_function Evidence of the ${name} procedure.`,
          );
        }
        const records = ids.map(pick);
        const first = records.find((record) =>
          JSON.stringify(record.parameters.collection_offset ?? 0) === "0"
        ) ?? records[0]!;
        const procedureOf = (record: EvidenceRecord): string =>
          JSON.stringify([
            record.subject?.digest.sha256 ?? null,
            (record.normalized_result as Dossier).procedure?.address ?? null,
          ]);
        if (
          records.some((record) =>
            procedureOf(record) !== procedureOf(first)
          )
        ) {
          throw new ToolFailure(
            "invalid_request",
            `The ${name} pages are dossiers of different procedures; pass the pages of one procedure per side.`,
          );
        }
        return { first, records };
      };
      const leftSide = side(args.left_evidence_id, args.left_evidence_ids, "left");
      const rightSide = side(args.right_evidence_id, args.right_evidence_ids, "right");
      const left = leftSide.first;
      const right = rightSide.first;
      const limitKeys = [
        "limit",
        "max_instructions",
        "include_assembly",
        "assembly_offset",
        "collection_offset",
      ];
      const differing = limitKeys.filter((k) =>
        JSON.stringify(left.parameters[k]) !== JSON.stringify(right.parameters[k])
      );
      if (differing.length > 0) {
        throw new ToolFailure(
          "invalid_request",
          `The two dossiers were built under different limits (${
            differing.join(", ")
          }); compare only dossiers with identical limits.`,
          { action: "Call analyze_function again on one side with the other side's limits." },
        );
      }
      const l = mergedPages(leftSide.records.map((record) => record.normalized_result as Dossier));
      const r = mergedPages(rightSide.records.map((record) => record.normalized_result as Dossier));
      const truncated = Boolean(l.instruction_scan?.truncated || r.instruction_scan?.truncated);
      // Providers spell mnemonics differently (Capstone, objdump): sequences compare only within one.
      const sameProvider = left.provider.id === right.provider.id;
      const unreported = (key: "callees" | "referenced_strings" | "basic_blocks"): boolean =>
        l[key] === null || l[key] === undefined || r[key] === null || r[key] === undefined;
      const setOf = (
        page: { items: { name?: string; address?: string; value?: string }[] } | null | undefined,
        key: "name" | "value",
      ) => new Set((page?.items ?? []).map((item) => item[key] || item.address || ""));
      const diffSets = (a: Set<string>, b: Set<string>) => ({
        only_left: [...a].filter((x) => !b.has(x)).sort(),
        only_right: [...b].filter((x) => !a.has(x)).sort(),
      });
      // Callees compare by resolved target (the name); unnamed ones (stubs, stripped
      // procedures) have only addresses, which move between builds: they compare by count.
      const named = (page: Dossier["callees"]) =>
        new Set((page?.items ?? []).filter((c) => c.name).map((c) => c.name!));
      const unnamedCount = (page: Dossier["callees"]) =>
        (page?.items ?? []).filter((c) => !c.name).length;
      const callees = {
        ...diffSets(named(l.callees), named(r.callees)),
        unnamed_left: unnamedCount(l.callees),
        unnamed_right: unnamedCount(r.callees),
      };
      const strings = diffSets(
        setOf(l.referenced_strings, "value"),
        setOf(r.referenced_strings, "value"),
      );
      const pagesTruncated = Boolean(l.callees?.truncated || r.callees?.truncated);
      const stringsTruncated = Boolean(
        l.referenced_strings?.truncated || r.referenced_strings?.truncated,
      );
      const leftSize = sizeOf(l);
      const rightSize = sizeOf(r);
      const verdict = (equal: boolean, unknown: boolean) =>
        unknown ? "unknown" : equal ? "equal" : "different";
      const dimensions = [
        {
          name: "size",
          left: leftSize.size,
          right: rightSize.size,
          verdict: verdict(
            leftSize.size === rightSize.size,
            leftSize.size === null || rightSize.size === null,
          ),
        },
        {
          name: "instruction_sequence",
          left: l.fingerprint?.mnemonics_sha256 ?? null,
          right: r.fingerprint?.mnemonics_sha256 ?? null,
          verdict: verdict(
            l.fingerprint?.mnemonics_sha256 === r.fingerprint?.mnemonics_sha256,
            truncated || !sameProvider,
          ),
        },
        {
          name: "instruction_count",
          left: l.fingerprint?.instruction_count ?? null,
          right: r.fingerprint?.instruction_count ?? null,
          verdict: verdict(
            l.fingerprint?.instruction_count === r.fingerprint?.instruction_count,
            truncated,
          ),
        },
        {
          name: "callees",
          ...callees,
          verdict: verdict(
            callees.only_left.length === 0 && callees.only_right.length === 0 &&
              callees.unnamed_left === callees.unnamed_right,
            truncated || pagesTruncated || unreported("callees"),
          ),
        },
        {
          name: "referenced_strings",
          ...strings,
          verdict: verdict(
            strings.only_left.length === 0 && strings.only_right.length === 0,
            truncated || stringsTruncated || unreported("referenced_strings"),
          ),
        },
        {
          name: "basic_blocks",
          left: l.basic_blocks?.total ?? null,
          right: r.basic_blocks?.total ?? null,
          verdict: verdict(
            l.basic_blocks?.total === r.basic_blocks?.total,
            truncated || unreported("basic_blocks"),
          ),
        },
      ];
      const overall = dimensions.some((d) => d.verdict === "different")
        ? "different"
        : dimensions.some((d) => d.verdict === "unknown")
        ? "unknown"
        : "equal-in-every-dimension";
      return Promise.resolve({
        kind: "evidence",
        draft: {
          subject: null,
          provider: {
            id: "casefile-function-comparison",
            name: "Casefile function comparison",
            version: "1",
          },
          operation: COMPARE_FUNCTIONS,
          predicate_type: "rea.function-comparison/v1",
          confidence: "derived",
          parameters: {
            left_evidence_id: left.evidence_id,
            right_evidence_id: right.evidence_id,
          },
          normalized_result: {
            left: {
              evidence_id: left.evidence_id,
              subject: left.subject?.digest.sha256 ?? null,
              procedure: l.procedure ?? null,
            },
            right: {
              evidence_id: right.evidence_id,
              subject: right.subject?.digest.sha256 ?? null,
              procedure: r.procedure ?? null,
            },
            dimensions: dimensions.slice(args.offset, args.offset + args.limit),
            verdict: overall,
          },
          evidence_links: [left.evidence_id, right.evidence_id],
          limitations: [
            "Equal fingerprints mean the same mnemonic sequence within the decoded range, not equal semantics; operands and data are not compared.",
            ...(leftSize.fromExtent || rightSize.fromExtent
              ? [
                "A procedure with no recorded size (Mach-O function starts, unwind-less code) is sized by its extent: up to the next known procedure start.",
              ]
              : []),
            ...(callees.unnamed_left + callees.unnamed_right > 0
              ? [
                `Unnamed callees (${callees.unnamed_left} left, ${callees.unnamed_right} right) have only addresses, which move between builds: they compare by count.`,
              ]
              : []),
            ...(sameProvider ? [] : [
              `The dossiers come from different providers (${left.provider.id}, ${right.provider.id}), which spell mnemonics differently: the instruction sequence is unknown.`,
            ]),
            ...(truncated
              ? [
                "At least one dossier was truncated: sequence, counts, callees and strings are unknown.",
              ]
              : []),
          ],
        },
      });
    },
  });
}

/**
 * One dossier from several pages of the same procedure's dossier: the
 * callees and referenced strings of every page together (a collection is
 * still truncated only when every page given says more follows it).
 */
function mergedPages(pages: Dossier[]): Dossier {
  const [first, ...rest] = pages;
  if (!first || rest.length === 0) return first!;
  const merge = <K extends "callees" | "referenced_strings">(key: K): Dossier[K] => {
    const present = pages.map((page) => page[key]).filter((page) =>
      page !== null && page !== undefined
    );
    if (present.length === 0) return first[key];
    const seen = new Set<string>();
    const items = present.flatMap((page) => page!.items).filter((item) => {
      const id = JSON.stringify(item);
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
    return {
      ...present[0]!,
      items,
      truncated: present.every((page) => page!.truncated),
    } as Dossier[K];
  };
  return { ...first, callees: merge("callees"), referenced_strings: merge("referenced_strings") };
}
