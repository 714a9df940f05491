/**
 * The peer's reading of a PE image's import address tables, for tests that
 * check calls through them.
 *
 * @module
 */

import { run } from "./programs.ts";

/**
 * Each import's IAT slot → its name, as `llvm-readobj-14 --file-headers
 * --coff-imports` lists them (`pointer`: the slot size, 4 or 8 bytes).
 */
export async function importSlots(path: string, pointer: bigint): Promise<Map<bigint, string>> {
  const text = await run("llvm-readobj-14", ["--file-headers", "--coff-imports", path]);
  const base = BigInt(/ImageBase: (0x[0-9A-Fa-f]+)/.exec(text)![1]!);
  const slots = new Map<bigint, string>();
  for (const block of text.split(/\n\s*Import \{/).slice(1)) {
    const table = /ImportAddressTableRVA: (0x[0-9A-Fa-f]+)/.exec(block);
    if (!table) continue;
    let slot = base + BigInt(table[1]!);
    for (const symbol of block.matchAll(/Symbol: (\S*) \(/g)) {
      slots.set(slot, symbol[1]!);
      slot += pointer;
    }
  }
  return slots;
}
