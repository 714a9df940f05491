/**
 * Benchmark helper: a real input of 100+ MB built from /usr/lib, shared by
 * the archive and artifact benchmarks so both measure the same bytes.
 */

/** The tar written and what it holds. */
export interface UsrLibTar {
  /** Path of the tar. */
  path: string;
  /** The /usr/lib subdirectories it holds, as names relative to /usr/lib. */
  directories: string[];
  /** Bytes of the tar file. */
  bytes: number;
}

/**
 * Writes `usr_lib.tar` into `dir`: the largest /usr/lib subdirectories
 * (each under 400 MB) until `targetBytes` is reached. Null when /usr/lib
 * holds less than 100 MB in such directories or tar and du are missing.
 *
 * Requires `--allow-read=/usr/lib`, `--allow-write` for `dir` and
 * `--allow-run=du,tar`.
 */
export async function buildUsrLibTar(
  dir: string,
  targetBytes: number,
): Promise<UsrLibTar | null> {
  const sizes: [string, number][] = [];
  for (const entry of Deno.readDirSync("/usr/lib")) {
    if (!entry.isDirectory) continue;
    const out = await new Deno.Command("du", {
      args: ["-sb", `/usr/lib/${entry.name}`],
      stdout: "piped",
      stderr: "null",
    })
      .output();
    const bytes = Number(new TextDecoder().decode(out.stdout).split("\t")[0]);
    if (bytes > 0 && bytes < 400 * 2 ** 20) sizes.push([entry.name, bytes]);
  }
  sizes.sort((a, b) => b[1] - a[1]);
  const chosen: string[] = [];
  let total = 0;
  for (const [name, bytes] of sizes) {
    if (total >= targetBytes) break;
    chosen.push(name);
    total += bytes;
  }
  if (total < 100 * 2 ** 20) return null;
  const path = `${dir}/usr_lib.tar`;
  // GNU tar exits 1 when a file changed or was unreadable; the tar is still usable.
  await new Deno.Command("tar", {
    args: ["-cf", path, "-C", "/usr/lib", ...chosen],
    stderr: "null",
  }).output();
  const bytes = (await Deno.stat(path).catch(() => null))?.size ?? 0;
  return bytes >= 100 * 2 ** 20 ? { path, directories: chosen, bytes } : null;
}
