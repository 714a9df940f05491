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
      "Follow a literal seed through the binary: strings containing it, the code that references those strings, the procedures containing that code, and a compact dossier of each — bounded by limit (hits kept) and max_operations (dossiers built), with every cut reported.",
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
        for (const hit of strings) {
          if (hit.address === null) continue;
          for (const ref of index.to(BigInt(hit.address))) {
            const entry = procedures.get(ref.procedure) ??
              {
                address: hex(ref.procedure),
                name: program.functionStartingAt(ref.procedure)?.name ?? "",
                via: [],
              };
            entry.via.push(`${hex(ref.from)} → ${hit.address}`);
            procedures.set(ref.procedure, entry);
          }
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
