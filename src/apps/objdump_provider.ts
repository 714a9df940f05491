/**
 * The `objdump` provider: GNU binutils as a deep candidate beside `native`.
 * It is available only when the operator policy allows starting processes
 * and Deno grants `--allow-run=objdump`; discovery never starts it. Bound to
 * an ELF or PE target, it lists documents and procedures from `objdump -t -T`;
 * every other analysis operation reports that this provider does not offer it.
 *
 * @module
 */

import { sha256Hex } from "../core/canonical_json.ts";
import { ToolFailure } from "../core/errors.ts";
import { isGranted } from "../core/permissions.ts";
import type { PolicyGate } from "../core/policy.ts";
import type { AnalysisProvider, ProcedurePage } from "./providers.ts";
import type { LoadedTarget } from "./target.ts";

/** The program this provider runs. */
export const OBJDUMP = "objdump";
/** Longest objdump run. */
const TIMEOUT_MS = 120_000;
/** Most output read from one run. */
const MAX_OUTPUT_BYTES = 512 * 1024 * 1024;

interface Listing {
  addresses: bigint[];
  names: string[];
}

/** Parses `objdump -t -T -w` output: defined function symbols (flag F), one per address. */
export function parseObjdumpSymbols(text: string): Listing {
  const byAddress = new Map<bigint, string[]>();
  for (const line of text.split("\n")) {
    // address, 7 flag columns, section, size, [version], name
    const m = /^([0-9a-f]{8,16}) (.{7}) (\S+)\s+([0-9a-f]+)\s+(?:(?:\(\S+\)|\S+)\s+)?(\S+)$/.exec(
      line,
    );
    if (!m) continue;
    const [, address, flags, section] = m;
    if (!flags!.includes("F") || section === "*UND*") continue;
    const name = m[5]!.replace(/@.*$/, "");
    const key = BigInt(`0x${address}`);
    const names = byAddress.get(key) ?? [];
    if (!names.includes(name)) names.push(name);
    byAddress.set(key, names);
  }
  const addresses = [...byAddress.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { addresses, names: addresses.map((a) => byAddress.get(a)!.sort()[0]!) };
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
      pending = run(target);
      listings.set(target, pending);
      pending.catch(() => listings.delete(target));
    }
    return pending;
  };

  const run = (target: LoadedTarget): Promise<Listing> =>
    gate.run(
      {
        kind: "effect",
        name: "objdump provider",
        effects: { launchesProcess: true },
        subject: OBJDUMP,
      },
      async () => {
        // objdump reads the file by path: make sure it still holds the bytes that were opened.
        const current = sha256Hex(await Deno.readFile(target.realPath));
        if (current !== target.sha256) {
          throw new ToolFailure(
            "artifact_integrity_mismatch",
            `${target.realPath} changed on disk since it was opened; objdump would read other bytes.`,
            { action: "Call open_binary again to open the file as it is now." },
          );
        }
        const output = await new Deno.Command(OBJDUMP, {
          args: ["-t", "-T", "-w", target.realPath],
          stdout: "piped",
          stderr: "piped",
          stdin: "null",
          signal: AbortSignal.timeout(TIMEOUT_MS),
        }).output();
        if (output.stdout.length > MAX_OUTPUT_BYTES) {
          throw new ToolFailure(
            "truncated",
            `objdump printed more than ${MAX_OUTPUT_BYTES} bytes.`,
          );
        }
        const text = new TextDecoder().decode(output.stdout);
        if (!output.success && !text.includes("SYMBOL TABLE")) {
          throw new ToolFailure(
            "provider_unavailable",
            `objdump failed on ${target.name}: ${
              new TextDecoder().decode(output.stderr).trim().slice(0, 500)
            }`,
          );
        }
        return parseObjdumpSymbols(text);
      },
    );

  return {
    identity: { id: "objdump", name: "GNU objdump (binutils)", version: null },
    capabilities: ["list_documents", "list_procedures"],
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
        : target.format === "elf" || target.format === "pe"
        ? { status: "supported", code: null, reason: `objdump reads ${target.formatName}.` }
        : {
          status: "unsupported",
          code: "target_format_unsupported",
          reason: `This provider does not read ${target.formatName}.`,
        },
    listDocuments: (target) => [target.documents[0]!.document],
    listProcedures: async (target, _document, offset, limit): Promise<ProcedurePage> => {
      const { addresses, names } = await listing(target);
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
  };
}
