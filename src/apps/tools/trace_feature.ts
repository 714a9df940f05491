/**
 * `trace_feature`: a literal seed followed to the procedures that use it.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, RECORDS_EVIDENCE, type ToolDefinition } from "../../core/catalog.ts";
import { buildDossier, hex, referenceScanFacts } from "../analysis/dossier.ts";
import { describeString, stringMatcher, stringValue } from "../analysis/strings.ts";
import type { AppsContext } from "../context/apps_context.ts";
import { observedRun, progressOf } from "../context/observation.ts";
import { traceFeatureResultSchema } from "../schemas/analysis_results.ts";
import { documentFields, limitField } from "../schemas/inputs.ts";
import { TRACE_FEATURE } from "../tool_names.ts";

/** Follows a literal seed through strings, the code referencing them and the procedures holding it. */
export function traceFeatureTool(context: AppsContext): ToolDefinition {
  return defineTool({
    name: TRACE_FEATURE,
    toolset: "static",
    description:
      "Follow a literal seed through the binary: strings containing it, the code that references those strings (at their start or anywhere up to the seed's end: length-delimited strings are packed one after another), the procedures containing that code, and a compact dossier of each — bounded by limit (hits kept) and max_operations (dossiers built), with every cut reported.",
    input: z.strictObject({
      query: z.string().min(1).max(4096).describe(
        "A literal seed: a message, a key, a symbol fragment.",
      ),
      case_sensitive: z.boolean().default(false).describe("Match the seed's case exactly."),
      limit: limitField(100, 20),
      max_operations: z.number().int().min(1).max(100).default(20).describe(
        "Most dossiers built (1 to 100).",
      ),
      ...documentFields,
    }),
    result: traceFeatureResultSchema,
    ...RECORDS_EVIDENCE,
    run: observedRun(context.session, TRACE_FEATURE, async ({ image, program }, args, call) => {
      const table = await program.strings(progressOf(call));
      const matcher = stringMatcher(args.query, "literal", args.case_sensitive);
      const hits: number[] = [];
      for (let i = 0; i < table.count; i++) {
        if (matcher(stringValue(image.bytes, table, i, 4096))) hits.push(i);
      }
      const kept = hits.slice(0, args.limit);
      const limitations: string[] = [];
      if (hits.length > kept.length) {
        limitations.push(
          `${
            hits.length - kept.length
          } further string hits were not followed (limit ${args.limit}).`,
        );
      }
      const strings = kept.map((i) => describeString(image, table, i));
      const procedures = new Map<bigint, { address: string; name: string; via: string[] }>();
      let indexFactsValue: Record<string, unknown> | null = null;
      const named = program.functionsNamed(args.query);
      if (program.decodable) {
        const index = await program.references({}, progressOf(call));
        indexFactsValue = referenceScanFacts(index);
        limitations.push(...index.limitations);
        // References into a string after its start but before the seed.
        let before = 0;
        for (const hit of strings) {
          if (hit.address === null) continue;
          // Code may point into the run rather than at its start (strings stored one after
          // another without NULs, as Rust's are): any reference up to the seed's end counts.
          const start = BigInt(hit.address);
          const unit = hit.encoding === "ascii" ? 1n : 2n;
          const seed = seedSpan(hit.value, args.query, args.case_sensitive);
          const seedStart = start + unit * BigInt(seed.start);
          for (const ref of index.within(start, start + unit * BigInt(seed.end))) {
            if (ref.to > start && ref.to < seedStart) before++;
            const entry = procedures.get(ref.procedure) ??
              {
                address: hex(ref.procedure),
                name: program.functionStartingAt(ref.procedure)?.name ?? "",
                via: [],
              };
            entry.via.push(`${hex(ref.from)} → ${hex(ref.to)}`);
            procedures.set(ref.procedure, entry);
          }
        }
        if (before > 0) {
          limitations.push(
            `${before} reference(s) point inside a string hit, before the seed: a string stored ` +
              "without a NUL may end before the seed, so whether they reach it is not known from " +
              "the bytes (their via gives the address).",
          );
        }
      } else {
        limitations.push(
          `${image.architecture} code is not disassembled: references to the strings cannot be followed.`,
        );
      }
      for (const fn of named) {
        if (!procedures.has(fn.address)) {
          procedures.set(fn.address, {
            address: hex(fn.address),
            name: fn.name,
            via: ["name"],
          });
        }
      }
      const maxOps = args.max_operations;
      const list = [...procedures.values()];
      if (list.length > maxOps) {
        limitations.push(
          `${
            list.length - maxOps
          } procedures were found but not analysed (max_operations ${maxOps}).`,
        );
      }
      const dossiers = [];
      for (const entry of list.slice(0, maxOps)) {
        const fn = program.functionStartingAt(BigInt(entry.address));
        if (!fn || !program.decodable) {
          dossiers.push({ ...entry, dossier: null });
          continue;
        }
        const d = await buildDossier(program, fn, {
          limit: 20,
          maxInstructions: 1000,
          includeAssembly: false,
          assemblyOffset: 0,
          collectionOffset: 0,
        }, null);
        dossiers.push({
          ...entry,
          dossier: {
            procedure: d.procedure,
            callees: (d.callees as { items: { address: string; name: string }[] }).items.map((
              c,
            ) => ({ address: c.address, name: c.name })),
            referenced_strings: (d.referenced_strings as { items: { value: string }[] }).items
              .map((s) => s.value),
            instruction_scan: d.instruction_scan,
          },
        });
      }
      return {
        result: {
          query: args.query,
          string_hits: strings,
          string_hit_total: hits.length,
          named_procedures: named.map((fn) => ({ address: hex(fn.address), name: fn.name })),
          procedures: dossiers,
          procedure_total: list.length,
          reference_scan: indexFactsValue,
          operations_used: Math.min(list.length, maxOps),
        },
        limitations,
      };
    }),
  });
}

/**
 * Where the seed's first occurrence lies in a string's value, in characters
 * (the whole value when the seed is not found whole in it, as when the value
 * was cut).
 */
function seedSpan(
  value: string,
  seed: string,
  caseSensitive: boolean,
): { start: number; end: number } {
  const at = caseSensitive ? value.indexOf(seed) : value.toLowerCase().indexOf(seed.toLowerCase());
  return at < 0
    ? { start: 0, end: Math.max(value.length, 1) }
    : { start: at, end: at + seed.length };
}
