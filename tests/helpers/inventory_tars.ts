/**
 * Benchmark helper: the inventory bench inputs, built at run time from the
 * machine's own files. A tar of many small files and directories (whole
 * subdirectories of /usr/lib and /usr/share, each under 200 MB) and a tar of
 * a few large files (the largest regular files under /usr/lib that are not
 * archives).
 *
 * @module
 */

/** A tar written for a bench and what it holds. */
export interface BenchTar {
  /** Path of the tar. */
  path: string;
  /** Bytes of the tar file. */
  bytes: number;
  /** Members tar listed (files, directories, links). */
  members: number;
  /** Directory members. */
  directories: number;
  /** The absolute paths archived. */
  sources: string[];
}

/** Where the many-small-files tar draws its subdirectories from. */
const SMALL_FILE_PARENTS = ["/usr/lib", "/usr/share"];
/** A subdirectory larger than this is left out of the many-small-files tar. */
const MAX_SUBDIRECTORY_BYTES = 200 * 2 ** 20;
/** A subdirectory with fewer entries than this is left out (it holds few, larger files). */
const MIN_SUBDIRECTORY_ENTRIES = 100;
/** Names of files that would be descended into as archives. */
const ARCHIVE_NAME = /\.(jar|zip|whl|apk|tar|tgz|gz|xz|zst|bz2|deb|a)$/i;

async function output(program: string, args: string[]): Promise<string> {
  const out = await new Deno.Command(program, { args, stdout: "piped", stderr: "null" }).output();
  return new TextDecoder().decode(out.stdout);
}

/** Bytes and entries (everything `find` lists, the directory itself included) under `path`. */
async function measureTree(path: string): Promise<{ bytes: number; entries: number }> {
  const bytes = Number((await output("du", ["-sb", path])).split("\t")[0]);
  const entries = (await output("find", [path])).split("\n").filter((l) => l !== "").length;
  return { bytes, entries };
}

/**
 * Writes a tar of `sources` (absolute paths) into `path` and counts its
 * members. With `every` above 1, only every `every`-th entry `find` lists
 * under them (files and directories alike) goes in, so bytes, members and
 * directories all shrink about in proportion.
 */
async function writeTar(path: string, sources: string[], every = 1): Promise<BenchTar | null> {
  const relative = sources.map((source) => source.replace(/^\/+/, ""));
  let args = ["-cf", path, "-C", "/", ...relative];
  if (every > 1) {
    const found = await new Deno.Command("find", {
      args: relative,
      cwd: "/",
      stdout: "piped",
      stderr: "null",
    }).output();
    const entries = new TextDecoder().decode(found.stdout).split("\n").filter((l) => l !== "");
    const list = `${path}.list`;
    await Deno.writeTextFile(list, entries.filter((_, i) => i % every === 0).join("\n") + "\n");
    args = [
      "-cf",
      path,
      "-C",
      "/",
      "--no-recursion",
      "--verbatim-files-from",
      "--no-unquote",
      "-T",
      list,
    ];
  }
  // GNU tar exits 1 when a file changed or was unreadable; the tar is still usable.
  await new Deno.Command("tar", { args, stdout: "null", stderr: "null" }).output();
  await Deno.remove(`${path}.list`).catch(() => {});
  const bytes = (await Deno.stat(path).catch(() => null))?.size ?? 0;
  if (bytes === 0) return null;
  const listing = (await output("tar", ["-tvf", path])).split("\n").filter((l) => l !== "");
  return {
    path,
    bytes,
    members: listing.length,
    directories: listing.filter((line) => line.startsWith("d")).length,
    sources,
  };
}

type Candidate = { path: string; bytes: number; entries: number };
let smallFileCandidates: Promise<Candidate[] | null> | null = null;

/** The subdirectories the many-small-files tar may hold, measured once per process. */
async function listSmallFileCandidates(): Promise<Candidate[] | null> {
  const candidates: Candidate[] = [];
  try {
    for (const parent of SMALL_FILE_PARENTS) {
      for (const entry of Deno.readDirSync(parent)) {
        if (!entry.isDirectory) continue;
        const path = `${parent}/${entry.name}`;
        const size = await measureTree(path);
        if (size.bytes < MAX_SUBDIRECTORY_BYTES && size.entries >= MIN_SUBDIRECTORY_ENTRIES) {
          candidates.push({ path, ...size });
        }
      }
    }
  } catch {
    return null;
  }
  return candidates;
}

/**
 * Writes `many_small.tar` into `dir`: whole subdirectories of /usr/lib and
 * /usr/share (each under 200 MB and of at least 100 entries, largest first)
 * until the tar holds at least `targetBytes` and `minMembers`; with `every`,
 * only every `every`-th of their entries (a proportional sample, for growth
 * curves). Null when the machine has too little, or tar, du or find are
 * missing.
 *
 * Requires `--allow-read=/usr`, `--allow-write` for `dir` and
 * `--allow-run=du,find,tar`.
 */
export async function buildManySmallFilesTar(
  dir: string,
  options: { targetBytes: number; minMembers: number; name?: string; every?: number },
): Promise<BenchTar | null> {
  const candidates = [...(await (smallFileCandidates ??= listSmallFileCandidates()) ?? [])];
  if (candidates.length === 0) return null;
  candidates.sort((a, b) => b.bytes - a.bytes || (a.path < b.path ? -1 : 1));
  const chosen: string[] = [];
  let bytes = 0;
  let entries = 0;
  for (const candidate of candidates) {
    if (bytes >= options.targetBytes && entries >= options.minMembers) break;
    // Past the byte target, only small subdirectories are added to reach the member count.
    if (bytes >= options.targetBytes && candidate.bytes > options.targetBytes / 8) continue;
    chosen.push(candidate.path);
    bytes += candidate.bytes;
    entries += candidate.entries;
  }
  if (bytes < options.targetBytes || entries < options.minMembers) return null;
  return await writeTar(`${dir}/${options.name ?? "many_small"}.tar`, chosen, options.every);
}

/**
 * Writes `few_large.tar` into `dir`: the largest regular files under /usr/lib
 * (each under 400 MB, none with an archive's name, one per size) until the
 * tar holds at least `targetBytes`, at most `maxFiles` of them. Null when the
 * machine has too little.
 *
 * Requires `--allow-read=/usr/lib`, `--allow-write` for `dir` and
 * `--allow-run=find,tar`.
 */
export async function buildFewLargeFilesTar(
  dir: string,
  options: { targetBytes: number; maxFiles: number },
): Promise<BenchTar | null> {
  const found =
    (await output("find", ["/usr/lib", "-type", "f", "-size", "+20M", "-printf", "%s %p\n"]))
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => {
        const space = line.indexOf(" ");
        return { bytes: Number(line.slice(0, space)), path: line.slice(space + 1) };
      })
      .filter((file) => file.bytes < 400 * 2 ** 20 && !ARCHIVE_NAME.test(file.path))
      .sort((a, b) => b.bytes - a.bytes || (a.path < b.path ? -1 : 1));
  const chosen: string[] = [];
  const sizes = new Set<number>();
  let bytes = 0;
  for (const file of found) {
    if (bytes >= options.targetBytes || chosen.length >= options.maxFiles) break;
    if (sizes.has(file.bytes)) continue;
    sizes.add(file.bytes);
    chosen.push(file.path);
    bytes += file.bytes;
  }
  if (bytes < options.targetBytes) return null;
  return await writeTar(`${dir}/few_large.tar`, chosen);
}
