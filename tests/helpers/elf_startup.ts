/**
 * Test helper: the functions an ELF file's loader calls, as readelf reads
 * them: DT_INIT and DT_FINI (`readelf -d`) and the entries of the
 * `.init_array` and `.fini_array` sections (`readelf -x`, words in the
 * file's byte order; 0 and all-ones entries are no functions).
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
  for (const name of [".init_array", ".fini_array"]) {
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
