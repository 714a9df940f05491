/** Finds the largest ELF shared library with a dynamic symbol table on this machine. */

import { isElf, parseElf } from "../../src/apps/formats/elf/parse.ts";

const DIRECTORIES = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib", "/lib"];

/** A shared-library file: its real path and its size. */
export interface LibraryFile {
  /** Real path of the file. */
  path: string;
  /** Size in bytes. */
  size: number;
}

/**
 * The regular files with `.so` in their names directly in `directories`
 * (unreadable ones skipped), by real path: a file reached through links
 * appears once per name.
 */
export function sharedLibraryFiles(directories: readonly string[] = DIRECTORIES): LibraryFile[] {
  const files: LibraryFile[] = [];
  for (const directory of directories) {
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
        if (info.isFile) files.push({ path: Deno.realPathSync(path), size: info.size });
      } catch {
        // unreadable: skip
      }
    }
  }
  return files;
}

/** The path of the largest `.so` whose dynamic symbols include functions, or null. */
export function largestSharedLibrary(): string | null {
  const candidates = sharedLibraryFiles();
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
