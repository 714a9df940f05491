/**
 * The built-in analysis provider: the format readers for structure, Capstone
 * and the WebAssembly body decoder for code, all in TypeScript.
 *
 * @module
 */

import { analysisProfile } from "../../core/evidence.ts";
import { VERSION } from "../../version.ts";
import { instructionSetOf } from "../analysis/code.ts";
import { DISCOVERY_MAX_INSTRUCTIONS } from "../analysis/discovery.ts";
import { buildDossier, referenceScanFacts } from "../analysis/dossier.ts";
import { REFERENCE_INDEX_LIMITS } from "../analysis/program.ts";
import { MIN_STRING_LENGTH } from "../analysis/strings.ts";
import { CAPSTONE_PACKAGE, CAPSTONE_VERSION } from "../../_vendor/capstone/package.ts";
import { DEMANGLER_PACKAGE } from "../disasm/demangle.ts";
import { type BinaryImage, sectionAt } from "../formats/binary_image.ts";
import { formatAddress, type LoadedTarget } from "../session/target.ts";
import { type AnalysisProvider, notDisassembled } from "./provider.ts";

/** Operations of the native provider. */
export const NATIVE_CAPABILITIES: readonly string[] = [
  "list_documents",
  "list_procedures",
  "binary_overview",
  "search_strings",
  "search_procedures",
  "procedure_address",
  "resolve_containing_procedure",
  "analyze_function",
  "xrefs",
  "procedure_callers",
  "procedure_callees",
  "build_call_path",
  "trace_feature",
];

/** The built-in pure-TypeScript provider (format readers plus Capstone for code). */
export function nativeProvider(): AnalysisProvider {
  const identity = { id: "native", name: "Casefile native reader", version: VERSION };
  const profile = analysisProfile(identity, 1, {
    machine_code: `Capstone ${
      CAPSTONE_VERSION.split(".")[0]
    } (the wasm build of ${CAPSTONE_PACKAGE})`,
    webassembly_code: "native body decoder",
    demangler: DEMANGLER_PACKAGE,
    reference_index: {
      max_instructions: REFERENCE_INDEX_LIMITS.maxInstructions,
      max_per_procedure: REFERENCE_INDEX_LIMITS.maxPerProcedure,
    },
    call_target_discovery: { max_instructions: DISCOVERY_MAX_INSTRUCTIONS },
    strings: { min_length: MIN_STRING_LENGTH, encodings: ["ascii", "utf-16le"] },
  });
  return {
    identity,
    profile: () => profile,
    capabilities: [...NATIVE_CAPABILITIES],
    availability: () => ({
      status: "available",
      code: null,
      reason: "Built in; needs no helper program.",
    }),
    supports: (target) => ({
      status: "supported",
      code: null,
      reason: `${target.formatName} is read natively.`,
    }),
    listDocuments: (target) => target.documents.map((d) => d.document),
    listProcedures: (target, document, offset, limit) => {
      const image = target.documents.find((d) => d.document === document) ?? target.documents[0]!;
      const functions = image.functions;
      const slice = functions.slice(offset, offset + limit);
      const end = offset + slice.length;
      const hasMore = end < functions.length;
      return Promise.resolve({
        items: slice.map((fn) => ({ address: formatAddress(fn.address), value: fn.name })),
        offset,
        limit,
        total: functions.length,
        has_more: hasMore,
        next_offset: hasMore ? end : null,
      });
    },
    procedures: ({ target, document }) => {
      const image = imageOf(target, document);
      return Promise.resolve({
        table: target.programs.get(image.document)!.procedures,
        sectionAt: (address) => sectionAt(image, address)?.name ?? null,
        limitations: [],
      });
    },
    analyzeProcedure: async ({ target, document }, request) => {
      const { procedure, control } = request;
      const image = imageOf(target, document);
      const program = target.programs.get(image.document)!;
      if (instructionSetOf(image, procedure) === null) {
        throw notDisassembled(image, request.operation);
      }
      const index = request.includeCallers ? await program.references({}, control) : null;
      const { limitations, ...dossier } = await buildDossier(
        program,
        procedure,
        request,
        index,
      ) as { limitations: string[] } & Record<string, unknown>;
      return {
        dossier: { ...dossier, reference_scan: index ? referenceScanFacts(index) : null },
        limitations,
      };
    },
  };
}

function imageOf(target: LoadedTarget, document: string): BinaryImage {
  return target.documents.find((d) => d.document === document) ?? target.documents[0]!;
}
