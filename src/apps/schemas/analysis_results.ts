/**
 * Result schemas of the static-analysis tools: what each records as the
 * `normalized_result` of its Evidence (and returns as `result`). Every
 * observation about a document starts with the document's name.
 *
 * @module
 */

import { z } from "zod";
import { listPageSchema } from "./page.ts";

const int = z.number().int();
const address = z.string().regex(/^0x[0-9a-f]+$/).describe("0x-prefixed lowercase hex.");

/** The fields of a dossier collection's page. */
type DossierPageShape<T extends z.ZodType> = {
  items: z.ZodArray<T>;
  total: z.ZodNullable<z.ZodNumber>;
  returned: z.ZodNumber;
  truncated: z.ZodBoolean;
  next_offset: z.ZodNullable<z.ZodNumber>;
};

/** A page of one dossier collection (all collections share the dossier's offset and limit). */
export function dossierPageSchema<T extends z.ZodType>(item: T): z.ZodObject<DossierPageShape<T>> {
  return z.object({
    items: z.array(item),
    total: int.nullable().describe("Null when the scan behind the collection was incomplete."),
    returned: int,
    truncated: z.boolean(),
    next_offset: int.nullable(),
  });
}

/** One string found in a document. */
export const stringHitSchema = z.object({
  address: z.string().nullable().describe("Virtual address when a section maps it, else null."),
  file_offset: int.describe("Offset in the opened file."),
  encoding: z.enum(["ascii", "utf-16le"]),
  length: int,
  value: z.string(),
  truncated: z.boolean(),
});

/** How complete the whole-document reference scan was. */
export const referenceScanSchema = z.object({
  complete: z.boolean(),
  scanned_procedures: int,
  total_procedures: int,
  scanned_instructions: int,
  unresolved: z.object({
    indirect_calls: int.describe("Calls through a register or memory left unresolved."),
    unknown_call_targets: int.describe(
      "Direct calls to an address that is no known procedure, import or stub.",
    ),
    sample: z.array(address).describe("At most 20 of those call sites, ascending."),
  }).describe("Call forms the scan could not resolve; complete is false when any is counted."),
});

/** A procedure named by its start. */
export const procedureRefSchema = z.object({ address, name: z.string() });

/** A procedure's canonical entry. */
const procedureEntry = {
  address,
  name: z.string(),
  demangled: z.string().nullable(),
  source: z.string().describe("Where the start came from (symtab, dynsym, export, pdata, …)."),
  size: int.nullable(),
};

/** The procedure part of a dossier. */
export const dossierProcedureSchema = z.object({
  ...procedureEntry,
  end: address,
  extent: z.enum(["symbol-size", "next-function", "section-end", "byte-cap"]),
  signature: z.null(),
  locals: z.null(),
  classification: z.enum(["leaf", "non-leaf"]).nullable(),
});

const calleeSchema = z.object({
  address,
  name: z.string(),
  kind: z.enum(["procedure", "import", "unknown"]),
  call_sites: z.array(address),
  annotation: z.string().nullable().optional().describe("objdump's own annotation (objdump)."),
});

/** A procedure reaching another by calls, or by tail jumps from outside it. */
const callerSchema = z.object({
  address,
  name: z.string(),
  call_sites: z.array(address),
  tail_jump_sites: z.array(address).optional().describe(
    "Jumps from this procedure to the target's start (or the import's stub or slot): tail calls, or jumps to a split-off .cold part. Absent when there are none.",
  ),
});

const instructionScanSchema = z.object({
  scanned: int,
  bytes: int,
  truncated: z.boolean(),
  stopped_on_invalid: z.boolean(),
});

/** The bounded function dossier; a collection a provider does not report is null. */
export const dossierSchema = z.object({
  procedure: dossierProcedureSchema,
  pseudocode: z.null(),
  assembly: dossierPageSchema(z.object({
    address,
    bytes: z.string(),
    mnemonic: z.string(),
    operands: z.string(),
    annotation: z.string().nullable().optional(),
  })).nullable().describe("The instruction listing, when include_assembly."),
  callers: dossierPageSchema(callerSchema).nullable(),
  callees: dossierPageSchema(calleeSchema).nullable(),
  tail_jumps: dossierPageSchema(calleeSchema).nullable(),
  indirect_call_sites: dossierPageSchema(address).nullable(),
  incoming_references: dossierPageSchema(
    z.object({ from: address, procedure: address, kind: z.enum(["call", "jump", "data"]) }),
  ).nullable(),
  outgoing_references: dossierPageSchema(z.object({
    from: address,
    to: address,
    target: z.string().describe("string, procedure, import, code, data or unmapped."),
    name: z.string(),
  })).nullable(),
  referenced_strings: dossierPageSchema(z.object({
    address,
    value: z.string(),
    encoding: z.string(),
    terminated: z.literal(false).optional().describe(
      "Present (false) when no NUL follows the string: a length-delimited string whose value " +
        "runs to the end of its printable run.",
    ),
    from: z.array(address),
  })).nullable(),
  referenced_names: dossierPageSchema(z.string()).nullable(),
  basic_blocks: dossierPageSchema(z.object({
    start: address,
    end: address,
    successors: z.array(address),
  })).nullable(),
  fingerprint: z.object({
    mnemonics_sha256: z.string(),
    mnemonic_counts: z.record(z.string(), int),
    instruction_count: int,
    mnemonic_spelling: z.string().optional().describe("Set when not Capstone's (objdump)."),
  }),
  instruction_scan: instructionScanSchema,
  reference_scan: referenceScanSchema.nullable().describe(
    "The whole-document scan behind callers and incoming references; null when not run.",
  ),
  provider_command: z.array(z.string()).optional().describe(
    "The command line that produced the listing (external providers).",
  ),
});

/** `binary_overview`. */
export const overviewResultSchema = z.object({
  document: z.string(),
  format: z.enum(["elf", "pe", "mach-o", "wasm"]),
  architecture: z.string(),
  machine: z.string(),
  bits: int,
  endianness: z.enum(["little", "big"]),
  entry: address.nullable(),
  build_id: z.string().nullable(),
  procedure_count: int,
  procedures_by_source: z.record(z.string(), int),
  import_count: int.describe(
    "Imported functions (data imports such as ELF OBJECT symbols are not counted; for WebAssembly, function imports only: its memory, table and global imports are not counted, though their modules are among libraries).",
  ),
  export_count: int,
  libraries: z.array(z.string()).describe("At most 100."),
  string_count: int,
  section_count: int.describe(
    "Sections loaded into memory (for ELF, those with SHF_ALLOC; readelf -S also lists the others: symbol and string tables, debug info, notes kept only in the file; for Mach-O, every section and each segment without sections, such as __PAGEZERO and __LINKEDIT, counted under its own name).",
  ),
  sections: z.array(z.object({
    name: z.string(),
    address,
    size: int,
    flags: z.string().describe("rwx, with - for a missing permission."),
  })).describe("The first `limit` sections (32 unless limit says otherwise)."),
  disassembly: z.string().describe("The instruction set decoded, or unavailable."),
  overlay: z.object({
    offset: int.describe("File offset of its first byte."),
    size: int,
    format: z.string().nullable().describe(
      "The format its first bytes name, as inventory_artifact reads them (zip, gzip, xz, zstd, bzip2, tar, elf, pe, text…); null when they name none.",
    ),
  }).nullable().describe(
    "Bytes after the executable image: a self-extractor's archive, an installer's payload, appended data, and for PE any Authenticode certificate table (pefile's overlay). For ELF past every header table, section and segment; for PE past the headers and every section's raw data. Null when there are none, or for Mach-O and WebAssembly, which are not checked (a limitation says so).",
  ),
  imports: z.array(z.object({
    name: z.string(),
    library: z.string().nullable().describe(
      "The library it comes from when the format says: for ELF, the library its symbol version's requirement names (readelf -V), else null.",
    ),
    version: z.string().nullable().describe(
      "The symbol version it needs (ELF: GLIBC_2.14, shown by nm -D as memcpy@GLIBC_2.14), or null.",
    ),
    address: address.nullable(),
  })).optional().describe("With detail detailed: the first `limit` imports."),
  exports: z.array(z.object({
    name: z.string(),
    address: address.nullable(),
    versioned_names: z.array(z.string()).describe(
      "The name with each symbol version it carries, as nm -D writes it (memcpy@@GLIBC_2.14 for the default version, memcpy@GLIBC_2.2.5 for an older one); empty when it has none. Tools taking a procedure name accept these.",
    ),
  })).optional()
    .describe("With detail detailed: the first `limit` exports."),
});

const searchEcho = {
  document: z.string(),
  query: z.string(),
  mode: z.enum(["literal", "regex"]),
};

/** `search_strings`. */
export const searchStringsResultSchema = listPageSchema(stringHitSchema).extend({
  ...searchEcho,
  scanned_strings: int,
});

/** `search_procedures`. */
export const searchProceduresResultSchema = listPageSchema(z.object(procedureEntry)).extend(
  searchEcho,
);

/** `procedure_address`. */
export const procedureAddressResultSchema = z.object({
  document: z.string(),
  ...procedureEntry,
  names: z.array(z.string()),
  matched_by: z.enum(["address", "name"]),
});

/** The containing procedure of an address. */
export const containingProcedureSchema = z.object({
  address,
  name: z.string(),
  demangled: z.string().nullable(),
  size: int.nullable(),
  offset: int.describe("The address's offset from the procedure start."),
  bounded_by: z.enum(["size", "next-start"]),
});

/** `resolve_containing_procedure`. */
export const containingResultSchema = z.object({
  document: z.string(),
  address,
  section: z.string().nullable(),
  procedure: containingProcedureSchema.nullable(),
});

/** `analyze_function`. */
export const analyzeFunctionResultSchema = dossierSchema.extend({ document: z.string() });

/** `xrefs`. */
export const xrefsResultSchema = listPageSchema(z.object({
  from: address,
  procedure: address,
  procedure_name: z.string(),
  kind: z.enum(["call", "jump", "data"]),
})).extend({
  document: z.string(),
  address: z.string(),
  reference_scan: referenceScanSchema,
});

/** `procedure_callers`. */
export const callersResultSchema = listPageSchema(callerSchema).extend({
  document: z.string(),
  procedure: procedureRefSchema.extend({
    kind: z.enum(["procedure", "import"]).describe(
      "An import's address is the stub calls go through, or its slot when it has none.",
    ),
  }),
  reference_scan: referenceScanSchema,
});

/** `procedure_callees`. */
export const calleesResultSchema = listPageSchema(calleeSchema).extend({
  document: z.string(),
  procedure: procedureRefSchema,
  tail_jumps: z.array(calleeSchema).describe(
    "Procedures and imports this one jumps to outside itself (tail calls, a split-off .cold part), with the jump sites; not paged.",
  ),
  indirect_call_sites: z.array(address),
  instruction_scan: instructionScanSchema,
});

/** A procedure on a call path, with how the step before reaches it. */
const pathStepSchema = procedureRefSchema.extend({
  via: z.enum(["call", "tail-jump"]).optional().describe(
    "How the procedure before reaches this one: a call, or a tail jump (a jump to this procedure's start, or to the import's stub or slot). Absent on the first step.",
  ),
});

/** `build_call_path`. */
export const callPathResultSchema = z.object({
  document: z.string(),
  from: procedureRefSchema,
  to: procedureRefSchema.extend({ kind: z.enum(["procedure", "import"]) }),
  found: z.boolean(),
  path: z.array(pathStepSchema),
  depth: int,
  visited: int,
  stopped_by: z.enum(["depth-limit", "node-limit", "path-limit"]).nullable(),
  unknowns: z.array(z.object({
    procedure: address,
    reason: z.enum([
      "instruction-limit",
      "indirect-call",
      "not-a-known-procedure",
      "no-dossier",
      "callees-incomplete",
    ]),
  })).describe("At most 200."),
  unknown_count: int,
  paths: listPageSchema(z.object({ procedures: z.array(pathStepSchema), depth: int }))
    .optional().describe(
      "With functions (REA's form): every path found through the given dossiers, paged.",
    ),
});

/** `trace_feature`. */
export const traceFeatureResultSchema = z.object({
  document: z.string(),
  query: z.string(),
  string_hits: z.array(stringHitSchema),
  string_hit_total: int,
  named_procedures: z.array(procedureRefSchema),
  procedures: z.array(z.object({
    address,
    name: z.string(),
    via: z.array(z.string()).describe(
      "name, or `from → address` per reference (the string's start, or a point inside it).",
    ),
    dossier: z.object({
      procedure: dossierProcedureSchema,
      callees: z.array(procedureRefSchema),
      referenced_strings: z.array(z.string()),
      instruction_scan: instructionScanSchema,
    }).nullable(),
  })),
  procedure_total: int,
  reference_scan: referenceScanSchema.nullable(),
  operations_used: int,
});

const verdict = z.enum(["equal", "different", "unknown"]);
const comparedSide = z.object({
  evidence_id: z.string(),
  subject: z.string().nullable().describe("The SHA-256 of the side's target."),
  procedure: dossierProcedureSchema.nullable(),
});

/** `compare_functions`. */
export const compareFunctionsResultSchema = z.object({
  left: comparedSide,
  right: comparedSide,
  dimensions: z.array(z.union([
    z.object({
      name: z.enum(["size", "instruction_sequence", "instruction_count", "basic_blocks"]),
      left: z.union([int, z.string()]).nullable(),
      right: z.union([int, z.string()]).nullable(),
      verdict,
    }),
    z.object({
      name: z.enum(["callees", "referenced_strings"]),
      only_left: z.array(z.string()),
      only_right: z.array(z.string()),
      unnamed_left: int.optional().describe(
        "Callees: unnamed targets on the left (compared by count, since their addresses move).",
      ),
      unnamed_right: int.optional().describe("Callees: unnamed targets on the right."),
      verdict,
    }),
  ])),
  verdict: z.enum(["different", "unknown", "equal-in-every-dimension"]),
});
