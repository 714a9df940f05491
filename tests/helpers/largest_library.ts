/** Finds the largest ELF shared library with a dynamic symbol table on this machine. */

import { isElf, parseElf } from "../../src/apps/formats/elf/parse.ts";

const DIRECTORIES = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib", "/lib"];

/** The path of the largest `.so` whose dynamic symbols include functions, or null. */
export function largestSharedLibrary(): string | null {
  const candidates: { path: string; size: number }[] = [];
  for (const directory of DIRECTORIES) {
    let entries: Iterable<Deno.DirEntry>;
    try {
      entries = Deno.readDirSync(directory);
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (!entry.name.includes(".so")) continue;
      const path = `${directory}/${entry.name}`;
      try {
        const info = Deno.statSync(path);
        if (info.isFile) candidates.push({ path: Deno.realPathSync(path), size: info.size });
      } catch {
        // unreadable: skip
      }
    }
  }
  candidates.sort((a, b) => b.size - a.size);
  const seen = new Set<string>();
  for (const { path } of candidates) {
    if (seen.has(path)) continue;
    seen.add(path);
    try {
      const bytes = Deno.readFileSync(path);
      if (isElf(bytes) && parseElf(bytes).functions.length > 100) return path;
    } catch {
      // not parseable: try the next
    }
  }
  return null;
}
