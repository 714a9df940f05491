import assert from "node:assert/strict";
import { elfImage } from "../src/apps/formats/elf/image.ts";
import { parseElf } from "../src/apps/formats/elf/parse.ts";
import { firstFile } from "./helpers/system_files.ts";

const LIBRARIES = ["/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/aarch64-linux-gnu/libc.so.6"];
const LIBC = firstFile(LIBRARIES);
if (!LIBC) console.log("skip elf_exports_test: no libc.so.6 under /usr/lib");

Deno.test({
  name: "elfImage() exports each defined global or weak name-and-address pair once, aliases kept",
  ignore: !LIBC,
  fn: () => {
    const bytes = Deno.readFileSync(LIBC!);
    const elf = parseElf(bytes);
    // The reference: the dynamic symbol list, filtered and deduplicated by name and address.
    const expected: string[] = [];
    const seen = new Set<string>();
    for (const symbol of elf.dynamicSymbols) {
      if (!symbol.defined || symbol.name === "") continue;
      if (!["global", "weak", "unique"].includes(symbol.binding)) continue;
      if (!["function", "ifunc", "object"].includes(symbol.type)) continue;
      // Version definitions (GLIBC_2.10…) are absolute symbols at 0, not exports.
      if (symbol.sectionIndex === 0xfff1 && symbol.value === 0n) continue;
      const key = `${symbol.name}@${symbol.value}`;
      if (seen.has(key)) continue;
      seen.add(key);
      expected.push(key);
    }
    const exports = elfImage(bytes, "libc.so.6", { parsed: elf }).exports;
    assert.deepStrictEqual(exports.map((e) => `${e.name}@${e.address}`), expected);
    // libc names one address several times (weak aliases): all of them stay.
    const perAddress = new Map<bigint | null, number>();
    for (const e of exports) perAddress.set(e.address, (perAddress.get(e.address) ?? 0) + 1);
    assert.ok([...perAddress.values()].some((n) => n > 1));
  },
});
