/**
 * Test helper: where an executable image ends as the platform's own tools
 * describe it, so that what follows (an overlay) can be checked: readelf for
 * ELF, llvm-readobj for PE.
 *
 * @module
 */

import { run } from "./programs.ts";

/**
 * Where the ELF image ends as readelf describes it: past the ELF header, the program and section
 * header tables, every section with file contents and every segment's file bytes.
 */
export async function readelfImageEnd(path: string): Promise<number> {
  const out = await run("readelf", ["-h", "-S", "-l", "-W", path]);
  const field = (label: string): number => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(out)![1]);
  let end = Math.max(
    field("Size of this header"),
    field("Start of program headers") +
      field("Size of program headers") * field("Number of program headers"),
    field("Start of section headers") +
      field("Size of section headers") * field("Number of section headers"),
  );
  for (
    const m of out.matchAll(
      /^\s*\[\s*\d+\]\s+\S*\s+(\S+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)/gm,
    )
  ) {
    if (m[1] === "NOBITS") continue;
    end = Math.max(end, parseInt(m[2]!, 16) + parseInt(m[3]!, 16));
  }
  for (
    const m of out.matchAll(
      /^\s+[A-Z_]+[A-Za-z_+]*\s+0x([0-9a-f]+)\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s+0x([0-9a-f]+)/gm,
    )
  ) {
    end = Math.max(end, parseInt(m[1]!, 16) + parseInt(m[2]!, 16));
  }
  return end;
}

/**
 * Where a PE image ends as `llvm-readobj-14 --file-headers --sections` describes it: past the
 * headers (SizeOfHeaders) and every section's raw data (PointerToRawData + RawDataSize).
 */
export async function readobjPeImageEnd(path: string): Promise<number> {
  const out = await run("llvm-readobj-14", ["--file-headers", "--sections", path]);
  let end = Number(/SizeOfHeaders:\s+(\d+)/.exec(out)![1]);
  for (const m of out.matchAll(/RawDataSize:\s+(\d+)\s+PointerToRawData:\s+0x([0-9A-Fa-f]+)/g)) {
    if (Number(m[1]) === 0) continue;
    end = Math.max(end, parseInt(m[2]!, 16) + Number(m[1]));
  }
  return end;
}

/**
 * Where a thin 64-bit Mach-O image ends as `llvm-objdump-14 --macho --private-headers` describes
 * it: past the header and load commands, every segment's file content, the symbol and string
 * tables and every linkedit data blob (the code signature among them).
 */
export async function objdumpMachOImageEnd(path: string): Promise<number> {
  const out = await run("llvm-objdump-14", ["--macho", "--private-headers", path]);
  const number = (m: RegExpMatchArray, i: number): number => Number(m[i]);
  let end = 32 + Number(/MH_MAGIC_64\s+\S+\s+\S+\s+\S+\s+\S+\s+\d+\s+(\d+)/.exec(out)![1]);
  for (const m of out.matchAll(/fileoff (\d+)\s+filesize (\d+)/g)) {
    end = Math.max(end, number(m, 1) + number(m, 2));
  }
  for (const m of out.matchAll(/symoff (\d+)\s+nsyms (\d+)\s+stroff (\d+)\s+strsize (\d+)/g)) {
    end = Math.max(end, number(m, 1) + 16 * number(m, 2), number(m, 3) + number(m, 4));
  }
  for (const m of out.matchAll(/dataoff (\d+)\s+datasize (\d+)/g)) {
    end = Math.max(end, number(m, 1) + number(m, 2));
  }
  return end;
}

/**
 * Where a universal Mach-O file's architectures end as `llvm-objdump-14 --macho
 * --universal-headers` lists them: past the last one (offset + size).
 */
export async function objdumpUniversalEnd(path: string): Promise<number> {
  const out = await run("llvm-objdump-14", ["--macho", "--universal-headers", path]);
  let end = 0;
  for (const m of out.matchAll(/offset (\d+)\s+size (\d+)/g)) {
    end = Math.max(end, Number(m[1]) + Number(m[2]));
  }
  return end;
}
