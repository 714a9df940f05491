/**
 * The `objdump` provider: GNU binutils as a deep candidate beside `native`.
 * It is available only when the operator policy allows starting processes
 * and Deno grants `--allow-run=objdump`; discovery never starts it. Bound to
 * an ELF target, it answers from objdump's own output:
 *
 * - documents, procedures, procedure search, procedure addresses and
 *   containment from `objdump -h -t -T -w` (section headers and the symbol
 *   tables, whose sizes give each procedure's extent);
 * - `analyze_function` and `procedure_callees` from
 *   `objdump -d -z -w --start-address=A --stop-address=B`, read line by line
 *   up to the instruction cap (objdump is stopped there).
 *
 * Every other analysis operation reports that this provider does not offer it.
 *
 * @module
 */

import { sha256Hex } from "../../core/canonical_json.ts";
import {
  type AnalysisProfile,
  analysisProfile,
  type ProviderIdentity,
} from "../../core/evidence.ts";
import { ToolFailure } from "../../core/errors.ts";
import { isGranted } from "../../core/permissions.ts";
import type { PolicyGate } from "../../core/policy.ts";
import {
  type ListedSection,
  type ListingArchitecture,
  ListingCollector,
  listingDossier,
  parseObjdumpSections,
  parseObjdumpSymbols,
  type SymbolListing,
} from "../analysis/objdump_listing.ts";
import { ProcedureTable } from "../analysis/procedures.ts";
import { hex } from "../analysis/dossier.ts";
import { nextFunctionStart } from "../analysis/code.ts";
import type { AnalysisProvider, DossierRequest, ProcedurePage } from "./provider.ts";
import type { LoadedTarget } from "../session/target.ts";

export { parseObjdumpSymbols };

/** The program this provider runs. */
export const OBJDUMP = "objdump";
/** Longest objdump run. */
const TIMEOUT_MS = 120_000;
/** Most output read from one run. */
const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

/** Longest disassembly of one procedure. */
const DISASSEMBLY_TIMEOUT_MS = 60_000;
/** Most bytes read for a procedure without a size and without a later symbol. */
const UNSIZED_BYTE_CAP = 1 << 20;

/** What objdump says about a file's sections and symbols. */
interface Listing {
  symbols: SymbolListing;
  sections: ListedSection[];
  table: ProcedureTable;
}

/** The output of one objdump run, read line by line. */
interface RunOutcome {
  /** True when the consumer stopped reading (objdump was then stopped). */
  stopped: boolean;
  success: boolean;
  stderr: string;
}

function listingArchitecture(target: LoadedTarget): ListingArchitecture | null {
  const architecture = target.documents[0]!.architecture;
  return architecture === "x86" || architecture === "x86_64"
    ? "x86"
    : architecture === "arm64"
    ? "arm64"
    : architecture === "arm"
    ? "arm"
    : null;
}

/** Builds the provider; it runs objdump only through the policy gate. */
export function objdumpProvider(
  gate: PolicyGate,
  processLaunchAllowed: () => boolean,
): AnalysisProvider {
  const listings = new WeakMap<LoadedTarget, Promise<Listing>>();

  const listing = (target: LoadedTarget): Promise<Listing> => {
    let pending = listings.get(target);
    if (!pending) {
      pending = readListing(target);
      listings.set(target, pending);
      pending.catch(() => listings.delete(target));
    }
    return pending;
  };

  // The version is learnt (inside the gated effect) before the first real run.
  const identity: ProviderIdentity = {
    id: "objdump",
    name: "GNU objdump (binutils)",
    version: null,
  };
  let profile: AnalysisProfile | null = null;
  let versionRun: Promise<void> | null = null;
  const learnVersion = (): Promise<void> =>
    versionRun ??= (async () => {
      const output = await new Deno.Command(OBJDUMP, {
        args: ["--version"],
        stdout: "piped",
        stderr: "null",
        stdin: "null",
        signal: AbortSignal.timeout(10_000),
      }).output();
      const first = new TextDecoder().decode(output.stdout).split("\n")[0] ?? "";
      identity.version = /(\d+\.\d+(?:\.\d+)*)\s*$/.exec(first)?.[1] ?? null;
    })().catch(() => {
      // Unknown versions leave records without a profile; the real run reports the failure.
      versionRun = null;
    });

  /**
   * Runs objdump on the target through the policy gate, after checking that
   * the file still holds the opened bytes; feeds stdout to `onLine` until it
   * returns false, then stops objdump.
   */
  const run = (
    target: LoadedTarget,
    args: string[],
    onLine: (line: string) => boolean,
    options: { timeoutMs: number; signal?: AbortSignal | undefined },
  ): Promise<RunOutcome> =>
    gate.run(
      {
        kind: "effect",
        name: "objdump provider",
        effects: { launchesProcess: true },
        subject: OBJDUMP,
      },
      async () => {
        await learnVersion();
        // objdump reads the file by path: make sure it still holds the bytes that were opened.
        const current = sha256Hex(await Deno.readFile(target.realPath));
        if (current !== target.sha256) {
          throw new ToolFailure(
            "artifact_integrity_mismatch",
            `${target.realPath} changed on disk since it was opened; objdump would read other bytes.`,
            { action: "Call open_binary again to open the file as it is now." },
          );
        }
        const timeout = AbortSignal.timeout(options.timeoutMs);
        const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
        let child: Deno.ChildProcess;
        try {
          child = new Deno.Command(OBJDUMP, {
            args: [...args, target.realPath],
            stdout: "piped",
            stderr: "piped",
            stdin: "null",
            signal,
          }).spawn();
        } catch (error) {
          if (error instanceof Deno.errors.NotCapable) {
            throw new ToolFailure(
              "permission_required",
              "Running objdump needs --allow-run=objdump.",
              { action: "Restart the server with --allow-run=objdump.", restartRequired: true },
            );
          }
          if (error instanceof Deno.errors.NotFound) {
            throw new ToolFailure(
              "provider_unavailable",
              "objdump is not installed or not on PATH (executable_missing).",
              { action: "Install GNU binutils, or open the target with provider_id native." },
            );
          }
          throw error;
        }
        const stderr = new Response(child.stderr).text();
        const reader = child.stdout.getReader();
        const decoder = new TextDecoder();
        let stopped = false;
        let bytes = 0;
        let rest = "";
        try {
          reading: for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            bytes += value.length;
            if (bytes > MAX_OUTPUT_BYTES) {
              throw new ToolFailure(
                "truncated",
                `objdump printed more than ${MAX_OUTPUT_BYTES} bytes.`,
              );
            }
            const lines = (rest + decoder.decode(value, { stream: true })).split("\n");
            rest = lines.pop()!;
            for (const line of lines) {
              if (!onLine(line)) {
                stopped = true;
                break reading;
              }
            }
          }
          if (rest !== "") onLine(rest);
        } finally {
          if (stopped || bytes > MAX_OUTPUT_BYTES) {
            await reader.cancel().catch(() => {});
            try {
              child.kill();
            } catch {
              // It has already exited.
            }
          }
        }
        const status = await child.status;
        const errorText = (await stderr.catch(() => "")).trim().slice(0, 500);
        if (!stopped && options.signal?.aborted) {
          throw new ToolFailure("cancelled", "The objdump run was cancelled.");
        }
        if (!stopped && timeout.aborted) {
          throw new ToolFailure(
            "provider_timeout",
            `objdump did not finish within ${options.timeoutMs / 1000} s on ${target.name}.`,
          );
        }
        return { stopped, success: status.success, stderr: errorText };
      },
    );

  const readListing = async (target: LoadedTarget): Promise<Listing> => {
    const lines: string[] = [];
    const outcome = await run(target, ["-h", "-t", "-T", "-w"], (line) => {
      lines.push(line);
      return true;
    }, { timeoutMs: TIMEOUT_MS });
    const text = lines.join("\n");
    if (!outcome.success && !text.includes("SYMBOL TABLE")) {
      throw new ToolFailure(
        "provider_unavailable",
        `objdump failed on ${target.name}: ${outcome.stderr}`,
      );
    }
    const symbols = parseObjdumpSymbols(text);
    return {
      symbols,
      sections: parseObjdumpSections(text),
      table: new ProcedureTable(symbols.functions, symbols),
    };
  };

  const lookupLimitations = (symbols: SymbolListing): string[] =>
    symbols.hasStaticSymbols ? [] : [
      "objdump found no static symbol table (the file is stripped): only dynamic function symbols are known, and local procedures are missing.",
    ];

  const analyzeProcedure = async (
    target: LoadedTarget,
    request: DossierRequest,
  ): Promise<{ dossier: Record<string, unknown>; limitations: string[] }> => {
    const { procedure: fn } = request;
    const { table, symbols } = await listing(target);
    let end: bigint;
    let extent: "symbol-size" | "next-function" | "byte-cap";
    if (fn.size > 0n) {
      end = fn.address + fn.size;
      extent = "symbol-size";
    } else {
      const next = nextFunctionStart(table.functions, fn.address);
      if (next !== null && next - fn.address <= BigInt(UNSIZED_BYTE_CAP)) {
        end = next;
        extent = "next-function";
      } else {
        end = fn.address + BigInt(UNSIZED_BYTE_CAP);
        extent = "byte-cap";
      }
    }
    const architecture = listingArchitecture(target);
    const args = [
      "-d",
      "-z",
      "-w",
      ...(architecture === "x86" ? ["-M", "intel"] : []),
      `--start-address=${hex(fn.address)}`,
      `--stop-address=${hex(end)}`,
    ];
    const collector = new ListingCollector(request.maxInstructions);
    const outcome = await run(target, args, (line) => collector.add(line), {
      timeoutMs: DISASSEMBLY_TIMEOUT_MS,
      signal: request.control.signal,
    });
    if (collector.instructions.length === 0) {
      if (!outcome.success && !outcome.stopped) {
        throw new ToolFailure(
          "provider_unavailable",
          `objdump could not disassemble ${target.name}: ${outcome.stderr}`,
        );
      }
      throw new ToolFailure(
        "invalid_request",
        collector.stoppedOnInvalid
          ? `objdump printed (bad) at ${
            hex(fn.address)
          }: the bytes at the start of ${fn.name} are not an instruction.`
          : `objdump listed no instructions between ${hex(fn.address)} and ${
            hex(end)
          }: the range is not in a code section objdump disassembles.`,
        { action: "Check the procedure with procedure_address, or pick another procedure." },
      );
    }
    const built = listingDossier(fn, {
      instructions: collector.instructions,
      truncated: collector.truncated,
      stoppedOnInvalid: collector.stoppedOnInvalid,
      end,
      extent,
    }, { architecture, table, limits: request });
    return {
      dossier: {
        ...built.dossier,
        provider_command: [OBJDUMP, ...args, target.realPath],
      },
      limitations: [...lookupLimitations(symbols), ...built.limitations],
    };
  };

  return {
    identity,
    profile: () =>
      identity.version === null ? null : (profile ??= analysisProfile(identity, 1, {
        program: OBJDUMP,
        symbols_and_sections: ["-h", "-t", "-T", "-w"],
        disassembly: ["-d", "-z", "-w", "--start-address", "--stop-address"],
        x86_syntax: "intel",
        listing_timeout_ms: TIMEOUT_MS,
        disassembly_timeout_ms: DISASSEMBLY_TIMEOUT_MS,
        max_output_bytes: MAX_OUTPUT_BYTES,
        unsized_procedure_byte_cap: UNSIZED_BYTE_CAP,
      })),
    capabilities: [
      "list_documents",
      "list_procedures",
      "search_procedures",
      "procedure_address",
      "resolve_containing_procedure",
      "analyze_function",
      "procedure_callees",
    ],
    availability: () => {
      if (!processLaunchAllowed()) {
        return {
          status: "unavailable",
          code: "not_configured",
          reason:
            "Operator policy does not allow starting processes (start the server with --allow-process-launch).",
        };
      }
      if (!isGranted("run", OBJDUMP)) {
        return {
          status: "unavailable",
          code: "not_configured",
          reason:
            "Deno does not grant running objdump (start the server with --allow-run=objdump).",
        };
      }
      return {
        status: "available",
        code: null,
        reason: "objdump may be run; it is started only when bound and used.",
      };
    },
    supports: (target) =>
      target.origin.kind === "occurrence"
        ? {
          status: "unsupported",
          code: "target_kind_unsupported",
          reason:
            "objdump reads files by path, and this target is an artifact member held in memory.",
        }
        : target.format === "elf"
        ? { status: "supported", code: null, reason: "objdump's ELF listings are read." }
        : {
          status: "unsupported",
          code: "target_format_unsupported",
          // objdump prints PE symbols as COFF records, which this provider does not read.
          reason: `This provider reads objdump's ELF listings only, not ${target.formatName}.`,
        },
    listDocuments: (target) => [target.documents[0]!.document],
    listProcedures: async (target, _document, offset, limit): Promise<ProcedurePage> => {
      const { addresses, names } = (await listing(target)).symbols;
      const end = Math.min(addresses.length, offset + limit);
      const items = [];
      for (let i = offset; i < end; i++) {
        items.push({ address: `0x${addresses[i]!.toString(16)}`, value: names[i]! });
      }
      const hasMore = end < addresses.length;
      return {
        items,
        offset,
        limit,
        total: addresses.length,
        has_more: hasMore,
        next_offset: hasMore ? end : null,
      };
    },
    procedures: async ({ target }) => {
      const { table, sections, symbols } = await listing(target);
      return {
        table,
        sectionAt: (address) =>
          sections.find((s) => address >= s.address && address < s.address + s.size)?.name ??
            null,
        limitations: lookupLimitations(symbols),
      };
    },
    analyzeProcedure: ({ target }, request) => analyzeProcedure(target, request),
  };
}
