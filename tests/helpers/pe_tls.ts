/**
 * The TLS callbacks of a PE image as the LLVM tools read them: the TLS
 * directory `llvm-readobj-14 --coff-tls-directory` prints, then the
 * pointers `llvm-objdump-14 -s` dumps at its AddressOfCallBacks.
 *
 * @module
 */

import { run } from "./programs.ts";

const hex = (a: bigint): string => `0x${a.toString(16)}`;

/** The TLS callbacks of `path`, as the peers read them: the directory, then the pointers. */
export async function peerCallbacks(path: string, pointer: number): Promise<bigint[]> {
  const tls = await run("llvm-readobj-14", ["--coff-tls-directory", path]);
  const found = /AddressOfCallBacks: (0x[0-9A-Fa-f]+)/.exec(tls);
  if (found === null) return [];
  const list = BigInt(found[1]!);
  if (list === 0n) return [];
  const dump = await run("llvm-objdump-14", [
    "-s",
    `--start-address=${hex(list)}`,
    `--stop-address=${hex(list + 64n * BigInt(pointer))}`,
    path,
  ]);
  // The dump's lines are 16 bytes from an aligned address: take the bytes from `list` on.
  const bytes: number[] = [];
  for (const m of dump.matchAll(/^ ([0-9a-f]+) ((?:[0-9a-f]{2,8} ?){1,4})/gm)) {
    let address = BigInt(`0x${m[1]}`);
    for (const word of m[2]!.trim().split(" ")) {
      for (let k = 0; k < word.length; k += 2, address++) {
        if (address >= list) bytes.push(parseInt(word.slice(k, k + 2), 16));
      }
    }
  }
  const callbacks: bigint[] = [];
  for (let at = 0; at + pointer <= bytes.length; at += pointer) {
    let value = 0n;
    for (let k = pointer - 1; k >= 0; k--) value = (value << 8n) | BigInt(bytes[at + k]!);
    if (value === 0n) break;
    callbacks.push(value);
  }
  return callbacks;
}
