/**
 * Test helper: the functions an ELF file's loader calls, as readelf reads
 * them: DT_INIT and DT_FINI (`readelf -d`) and the entries of the
 * `.init_array`, `.fini_array` and `.preinit_array` sections (`readelf -x`,
 * words in the file's byte order; 0 and all-ones entries are no functions),
 * and the addends of the RELATIVE relocations of their slots (`readelf -r`):
 * AArch64 linkers leave those slots 0 in the file.
 *
 * @module
 */

import { run } from "./programs.ts";

/** The loader-called addresses of `path` (Thumb bit cleared), sorted and unique. */
export async function peerStartupFunctions(path: string): Promise<bigint[]> {
  const dynamic = await run("readelf", ["-d", "-W", path]).catch(() => "");
  const found = new Set<bigint>();
  for (const m of dynamic.matchAll(/\((INIT|FINI)\)\s+(0x[0-9a-f]+)/g)) found.add(BigInt(m[2]!));
  const header = await run("readelf", ["-h", path]);
  const wide = /Class:\s+ELF64/.test(header);
  const little = /little endian/.test(header);
  const arm = /Machine:\s+ARM$/m.test(header);
  const sections = await run("readelf", ["-S", "-W", path]);
  const arrays: [bigint, bigint][] = [];
  for (
    const m of sections.matchAll(
      /\] \.(?:init|fini|preinit)_array\s+\S+\s+([0-9a-f]+) [0-9a-f]+ ([0-9a-f]+)/g,
    )
  ) {
    const start = BigInt(`0x${m[1]}`);
    arrays.push([start, start + BigInt(`0x${m[2]}`)]);
  }
  const relocations = await run("readelf", ["-r", "-W", path]).catch(() => "");
  for (
    const m of relocations.matchAll(/^([0-9a-f]+)\s+[0-9a-f]+\s+R_\w+_RELATIVE\s+([0-9a-f]+)$/gm)
  ) {
    const slot = BigInt(`0x${m[1]}`);
    if (arrays.some(([start, end]) => slot >= start && slot < end)) found.add(BigInt(`0x${m[2]}`));
  }
  for (const name of [".init_array", ".fini_array", ".preinit_array"]) {
    if (!sections.includes(` ${name} `)) continue;
    const dump = await run("readelf", ["-x", name, path]);
    const bytes: number[] = [];
    for (const line of dump.split("\n")) {
      const m = /^\s+0x[0-9a-f]+ ((?:[0-9a-f]{2,8} ?){1,4})/.exec(line);
      if (!m) continue;
      for (const group of m[1]!.trim().split(/\s+/)) {
        for (let i = 0; i < group.length; i += 2) bytes.push(parseInt(group.slice(i, i + 2), 16));
      }
    }
    const word = wide ? 8 : 4;
    for (let at = 0; at + word <= bytes.length; at += word) {
      let value = 0n;
      for (let k = 0; k < word; k++) {
        const byte = BigInt(bytes[little ? at + word - 1 - k : at + k]!);
        value = (value << 8n) | byte;
      }
      if (value === 0n || value === (1n << BigInt(word * 8)) - 1n) continue;
      found.add(value);
    }
  }
  return [...found].map((a) => (arm ? a & ~1n : a)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** One instruction line of `objdump -d`: its address, section and text. */
interface Line {
  address: bigint;
  section: string;
  text: string;
}

/** How a disassembler prints direct branches and the ends of straight-line code. */
interface Syntax {
  command: [string, ...string[]];
  /** A direct call or jump: group 1 is the target in hex. */
  branch: RegExp;
  /** A return or an unconditional jump (direct or not). */
  end: RegExp;
}

/** binutils objdump on x86 code, or llvm-objdump-14 on AArch64 code. */
const SYNTAX: Record<"x86" | "arm64", Syntax> = {
  x86: {
    command: ["objdump", "-d", "-w", "--no-show-raw-insn"],
    branch: /^(?:bnd |notrack )?(?:call|jmp)q?\s+([0-9a-f]+) </,
    end: /^(?:bnd |notrack |rep )?(?:ret|jmp)/,
  },
  arm64: {
    command: ["llvm-objdump-14", "-d", "--no-show-raw-insn"],
    branch: /^bl?\s+0x([0-9a-f]+)/,
    end: /^(?:ret|br?)(?:\s|$)/,
  },
};

/**
 * What the disassembler shows the loader's functions reach that nothing
 * else lists: from each of `startup`, the instruction lines up to its first
 * return or unconditional jump, within its extent (up to the next of
 * `starts`), and the target of each direct call or jump there that leaves
 * the extent for a non-PLT section, is no start yet and lies in no sized
 * extent (`inside`); the same from each target found, for four rounds.
 * Sorted and unique.
 */
export async function peerStartupCallees(
  path: string,
  startup: readonly bigint[],
  starts: ReadonlySet<bigint>,
  inside: (address: bigint) => boolean,
  set: "x86" | "arm64" = "x86",
): Promise<bigint[]> {
  const syntax = SYNTAX[set];
  const lines: Line[] = [];
  let section = "";
  const [program, ...args] = syntax.command;
  for (const line of (await run(program, [...args, path])).split("\n")) {
    const heading = /^Disassembly of section (\S+):/.exec(line);
    if (heading) section = heading[1]!;
    const m = /^\s+([0-9a-f]+):\s+(.*)$/.exec(line);
    if (m) lines.push({ address: BigInt(`0x${m[1]}`), section, text: m[2]!.trim() });
  }
  const sectionOf = new Map(lines.map((l) => [l.address, l.section]));
  const known = new Set(starts);
  const found: bigint[] = [];
  let queue = [...startup];
  for (let round = 0; round < 4 && queue.length > 0; round++) {
    const fresh: bigint[] = [];
    for (const start of queue) {
      const next = [...known].filter((s) => s > start).reduce((a, b) => (b < a ? b : a), 1n << 64n);
      for (const line of lines) {
        if (line.address < start || line.address >= next) continue;
        const branch = syntax.branch.exec(line.text);
        if (branch) {
          const target = BigInt(`0x${branch[1]}`);
          const into = sectionOf.get(target) ?? "";
          if (
            (target < start || target >= next) && !/^\.i?plt/.test(into) && into !== "" &&
            !known.has(target) && !inside(target)
          ) {
            known.add(target);
            fresh.push(target);
          }
        }
        if (syntax.end.test(line.text)) break;
      }
    }
    found.push(...fresh);
    queue = fresh;
  }
  return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
