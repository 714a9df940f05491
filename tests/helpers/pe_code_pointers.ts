/**
 * The code pointers of a 64-bit PE image as the peers give them: the DIR64
 * base relocations `llvm-readobj-14 --coff-basereloc` lists whose slot lies
 * outside code, read at the file offsets `llvm-readobj-14 --sections` gives,
 * that hold an address in code.
 *
 * @module
 */

import { run } from "./in_memory.ts";

const READOBJ = "llvm-readobj-14";

interface PeerSection {
  name: string;
  rva: number;
  size: number;
  rawPointer: number;
  rawSize: number;
  code: boolean;
}

/** The code pointers of a 64-bit PE image as the peers give them: RVAs, sorted, and its image base. */
export async function peerCodePointers(
  path: string,
): Promise<{ pointers: number[]; base: bigint }> {
  const headers = await run(READOBJ, ["--file-headers", "--sections", path]);
  const base = BigInt(/ImageBase: (0x[0-9A-Fa-f]+)/.exec(headers)![1]!);
  const sections: PeerSection[] = [];
  for (const block of headers.split(/\n\s*Section \{/).slice(1)) {
    const field = (name: string): number =>
      Number(new RegExp(`${name}: (0x[0-9A-F]+|\\d+)`).exec(block)![1]);
    const characteristics = Number(/Characteristics \[ \((0x[0-9A-F]+)\)/.exec(block)![1]);
    sections.push({
      name: /Name: (\S+)/.exec(block)![1]!,
      rva: field("VirtualAddress"),
      size: field("VirtualSize") || field("RawDataSize"),
      rawPointer: field("PointerToRawData"),
      rawSize: field("RawDataSize"),
      code: (characteristics & 0x20000020) !== 0,
    });
  }
  const holding = (rva: number): PeerSection | undefined =>
    sections.find((s) => rva >= s.rva && rva < s.rva + s.size);
  const bytes = await Deno.readFile(path);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const relocations = await run(READOBJ, ["--coff-basereloc", path]);
  const pointers = new Set<number>();
  for (const match of relocations.matchAll(/Type: DIR64\s+Address: (0x[0-9A-F]+)/g)) {
    const slot = Number(match[1]);
    const section = holding(slot);
    if (!section || section.code || slot - section.rva + 8 > section.rawSize) continue;
    const target = Number(view.getBigUint64(section.rawPointer + slot - section.rva, true) - base);
    if (holding(target)?.code) pointers.add(target);
  }
  return { pointers: [...pointers].sort((a, b) => a - b), base };
}
