/**
 * Benchmarks of artifact inventories, through a real MCP client:
 *
 * - throughput of open_binary and inventory_artifact (every page) on a tar of
 *   100+ MB built from /usr/lib (the archive bench's input), on the same
 *   files extracted as a directory, and on /usr/include (many small files),
 *   each iteration paired with `sha256sum` over the same artifact; prints
 *   MiB/s of artifact bytes and the ratio (target: ours ≥ 60 % of
 *   sha256sum's);
 * - peak RSS of a separate process inventorying each, against its size, and
 *   against a directory holding one 1 GiB file (memory must not grow with
 *   the bytes read);
 * - compare_artifacts over every page of two generated directories of
 *   12,000+ occurrences each.
 *
 * Every inventory runs with the traversal limits at their upper bounds (so
 * nothing is truncated; each run checks the manifest is complete).
 *
 * Run with `deno bench --no-prompt --allow-read --allow-write --allow-run
 * --allow-env --allow-net=127.0.0.1 tests/artifacts_bench.ts`.
 */

import { measure, median, reportMedian } from "./helpers/bench_stats.ts";
import { connect, type Loose, ok } from "./helpers/in_memory.ts";
import { inventoryAll } from "./helpers/inventory.ts";
import { hasProgram } from "./helpers/programs.ts";
import { buildUsrLibTar } from "./helpers/usr_lib_tar.ts";
import { LIMIT_BOUNDS } from "../src/apps/artifacts/model.ts";

const TARGET_BYTES = 120 * 2 ** 20;
/** Every traversal limit at its upper bound: nothing in these inputs comes near them. */
const LIMITS = { ...LIMIT_BOUNDS };
const MIB = 2 ** 20;

const dir = await Deno.makeTempDir({ prefix: "casefile-artifacts-bench-" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

/** Lines of the final report, each computed when the run ends (null: nothing to say). */
const summary: Array<() => string | null> = [];
globalThis.addEventListener("unload", () => {
  const lines = summary.map((line) => line()).filter((line) => line !== null);
  if (lines.length > 0) console.log(`\nartifact benchmarks:\n  ${lines.join("\n  ")}`);
});

/** The regular files under `root` (what `find -type f | xargs sha256sum` reads). */
function regularFiles(root: string): { count: number; bytes: number } {
  const total = { count: 0, bytes: 0 };
  for (const entry of Deno.readDirSync(root)) {
    const path = `${root}/${entry.name}`;
    if (entry.isDirectory) {
      const below = regularFiles(path);
      total.count += below.count;
      total.bytes += below.bytes;
    } else if (entry.isFile) {
      total.count++;
      total.bytes += Deno.statSync(path).size;
    }
  }
  return total;
}

async function sh(script: string): Promise<void> {
  const out = await new Deno.Command("sh", {
    args: ["-c", script],
    stdout: "null",
    stderr: "piped",
  })
    .output();
  if (!out.success) throw new Error(`${script} failed: ${new TextDecoder().decode(out.stderr)}`);
}

/** Milliseconds `fn` takes. */
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Per-iteration throughput ratios (ours / sha256sum's), by bench. */
const ratios = new Map<string, number[]>();
const inventoryShape = new Map<string, { occurrences: number; hashed: number }>();

/**
 * One iteration: the peer runs first (untimed for deno bench, kept as a
 * sample), then `path` is opened in a fresh session and every inventory page
 * fetched, timed as `what` says. Running both in one iteration keeps the
 * load of a shared machine the same for the pair.
 */
async function inventoryOnce(
  label: string,
  what: "open+inventory" | "inventory",
  path: string,
  peer: string,
  b: Deno.BenchContext,
): Promise<void> {
  const peerMs = await timed(() => sh(peer));
  samplesOfPeer.set(label, [...(samplesOfPeer.get(label) ?? []), peerMs]);
  const session = await connect({ roots: [path] });
  try {
    let inventory: Loose = null;
    const run = async (): Promise<void> => {
      inventory = await inventoryAll(session.client, LIMITS);
    };
    let oursMs: number;
    if (what === "open+inventory") {
      oursMs = await timed(() =>
        measure(`${label} ${what}`, b, async () => {
          await ok(session.client, "open_binary", { path });
          await run();
        })
      );
    } else {
      await ok(session.client, "open_binary", { path });
      oursMs = await timed(() => measure(`${label} ${what}`, b, run));
    }
    if (!inventory.manifest.complete) {
      throw new Error(`the inventory of ${path} is incomplete: ${inventory.first.limitations}`);
    }
    const key = `${label} ${what}`;
    // The first call of each bench is its warmup: its ratio is left out.
    if (warmedUp.has(key)) ratios.set(key, [...(ratios.get(key) ?? []), peerMs / oursMs]);
    warmedUp.add(key);
    // Bytes hashed: the root (when it is a file), every member, and the members of nested archives.
    const hashed = inventory.occurrences
      .filter((o: Loose) => o.entry_kind === "file" && o.sha256 !== null)
      .reduce((n: number, o: Loose) => n + o.size, 0);
    inventoryShape.set(path, { occurrences: inventory.manifest.occurrence_count, hashed });
  } finally {
    await session.close();
  }
}
const samplesOfPeer = new Map<string, number[]>();
const warmedUp = new Set<string>();

function middle(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Throughput benches of one artifact, each iteration paired with its sha256sum peer. */
function throughput(label: string, path: string, bytes: number, peer: string, what: string): void {
  const group = label.replace(/\W+/g, "-");
  Deno.bench({
    name: `${label}: open_binary + inventory_artifact (every page)`,
    group,
    n: 5,
    warmup: 1,
    fn: async (b) => await inventoryOnce(label, "open+inventory", path, peer, b),
  });
  Deno.bench({
    name: `${label}: inventory_artifact (every page) after open_binary`,
    group,
    n: 5,
    warmup: 1,
    fn: async (b) => await inventoryOnce(label, "inventory", path, peer, b),
  });
  Deno.bench({
    name: `peer: ${peer}`,
    group,
    baseline: true,
    n: 5,
    warmup: 1,
    fn: async (b) => await measure(`${label} sha256sum`, b, () => sh(peer)),
  });
  summary.push(() => {
    const mibps = (ms: number): number => bytes / MIB / (ms / 1000);
    const peerMs = middle(samplesOfPeer.get(label) ?? []);
    if (Number.isNaN(peerMs)) return null;
    const line = (name: string): string => {
      const ratio = middle(ratios.get(`${label} ${name}`) ?? []);
      return `${name} ${
        mibps(median(`${label} ${name}`)).toFixed(0)
      } MiB/s, median ratio to its paired sha256sum ${(ratio * 100).toFixed(0)} % (per iteration: ${
        (ratios.get(`${label} ${name}`) ?? []).map((r) => (r * 100).toFixed(0)).join(", ")
      }; target ≥ 60 %: ${ratio >= 0.6 ? "met" : "MISSED"})`;
    };
    const shape = inventoryShape.get(path);
    return `${label}, ${(bytes / MIB).toFixed(0)} MiB, ${shape?.occurrences} occurrences, ${
      ((shape?.hashed ?? 0) / MIB).toFixed(0)
    } MiB hashed by the inventory; sha256sum over ${what}: ${
      mibps(peerMs).toFixed(0)
    } MiB/s (median of the paired runs); ${line("inventory")}; ${line("open+inventory")}`;
  });
}

/** Peak RSS of a separate process opening and inventorying `path`. */
async function probeMemory(label: string, path: string, bytes: number): Promise<void> {
  const probe = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--allow-read",
      "--allow-env",
      new URL("./fixtures/artifact_memory_probe.ts", import.meta.url).pathname,
      path,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const memory = JSON.parse(
    new TextDecoder().decode(probe.stdout).trim().split("\n").pop() ?? "{}",
  );
  const line = `peak RSS inventorying ${label} (${
    (bytes / MIB).toFixed(0)
  } MiB, ${memory.occurrences} occurrences, complete ${memory.complete}): ${
    (memory.peak_rss / MIB).toFixed(0)
  } MiB, growth ${(memory.growth / MIB).toFixed(0)} MiB over the ${
    (memory.baseline_rss / MIB).toFixed(0)
  } MiB baseline = ${(memory.growth / bytes).toFixed(2)}× the artifact size (open ${
    memory.open_seconds?.toFixed(2)
  } s, inventory ${memory.inventory_seconds?.toFixed(2)} s)`;
  summary.push(() => line);
}

// --- throughput and memory on a real 100+ MB artifact ------------------------

const canBuild = hasProgram("tar") && hasProgram("du") && hasProgram("sha256sum");
const usrLib = canBuild ? await buildUsrLibTar(dir, TARGET_BYTES) : null;
if (!usrLib) {
  console.log("skip: cannot build a 100 MB tar from /usr/lib (needs tar, du and sha256sum)");
} else {
  const tree = `${dir}/tree`;
  await Deno.mkdir(tree);
  await sh(`tar -xf '${usrLib.path}' -C '${tree}'`);
  const treeBytes = regularFiles(tree).bytes;
  const names = usrLib.directories.map((d) => `/usr/lib/${d}`).join(", ");
  summary.push(() =>
    `input: ${names} as a tar of ${usrLib.bytes} bytes, and extracted to a directory of ${treeBytes} bytes in regular files`
  );
  throughput(
    "tar",
    usrLib.path,
    usrLib.bytes,
    `sha256sum '${usrLib.path}'`,
    "the tar file",
  );
  throughput(
    "directory",
    tree,
    treeBytes,
    `find '${tree}' -type f -print0 | xargs -0 sha256sum > /dev/null`,
    "every regular file",
  );
  // A real directory of many small files, where per-file costs rather than hashing dominate.
  const include = "/usr/include";
  let includeFiles: { count: number; bytes: number } | null = null;
  try {
    includeFiles = regularFiles(include);
  } catch {
    // absent or unreadable: skipped below
  }
  if (includeFiles && includeFiles.count >= 1000) {
    summary.push(() =>
      `input: ${include}, ${includeFiles.count} regular files, ${includeFiles.bytes} bytes`
    );
    throughput(
      "small files",
      include,
      includeFiles.bytes,
      `find '${include}' -type f -print0 | xargs -0 sha256sum > /dev/null`,
      "every regular file",
    );
  } else {
    console.log(`skip: ${include} is missing or holds fewer than 1000 regular files`);
  }
  await probeMemory("the tar", usrLib.path, usrLib.bytes);
  await probeMemory("the directory", tree, treeBytes);
  // Bytes read must not show in memory: one sparse 1 GiB file (read as zeros).
  const big = `${dir}/big`;
  await Deno.mkdir(big);
  const file = await Deno.open(`${big}/zeros.bin`, { write: true, createNew: true });
  await file.truncate(2 ** 30);
  file.close();
  await sh(`cat '${big}/zeros.bin' > /dev/null`); // in the page cache, like the other inputs
  await probeMemory("a directory holding one 1 GiB file", big, 2 ** 30);
}

// --- compare_artifacts on two inventories of 12,000+ occurrences -------------

const DIRECTORIES = 120;
const FILES_PER_DIRECTORY = 100;

/** A tree of DIRECTORIES × FILES_PER_DIRECTORY small files; `variant` changes a few hundred. */
async function generateTree(root: string, variant: boolean): Promise<void> {
  const encoder = new TextEncoder();
  for (let d = 0; d < DIRECTORIES; d++) {
    const sub = `${root}/d${String(d).padStart(3, "0")}`;
    await Deno.mkdir(sub, { recursive: true });
    for (let f = 0; f < FILES_PER_DIRECTORY; f++) {
      const i = d * FILES_PER_DIRECTORY + f;
      // In the variant: every 40th file changed, every 120th removed, 100 files added.
      if (variant && i % 120 === 7) continue;
      const changed = variant && i % 40 === 3;
      const body = `file ${i}${changed ? " (edited)" : ""}\n${"x".repeat(i % 200)}\n`;
      await Deno.writeFile(`${sub}/f${String(f).padStart(3, "0")}.txt`, encoder.encode(body));
    }
    if (variant && d < 10) {
      for (let f = 0; f < 10; f++) {
        await Deno.writeFile(`${sub}/new${f}.txt`, encoder.encode(`new ${d}/${f}\n`));
      }
    }
  }
}

const left = `${dir}/left`;
const right = `${dir}/right`;
await generateTree(left, false);
await generateTree(right, true);
const session = await connect({ roots: [dir] });
globalThis.addEventListener("unload", () => void session.close());
await ok(session.client, "open_binary", { path: left });
const leftInventory = await inventoryAll(session.client, LIMITS);
await ok(session.client, "open_binary", { path: right });
const rightInventory = await inventoryAll(session.client, LIMITS);
let compared: Loose = null;
Deno.bench({
  name: `compare_artifacts: ${leftInventory.ids.length} + ${rightInventory.ids.length} pages`,
  group: "compare",
  n: 10,
  warmup: 1,
  fn: async (b) => {
    await measure("compare", b, async () => {
      compared = await ok(session.client, "compare_artifacts", {
        left_evidence_ids: leftInventory.ids,
        right_evidence_ids: rightInventory.ids,
        limit: 500,
      });
    });
  },
});
reportMedian(
  `compare_artifacts over ${leftInventory.manifest.occurrence_count} and ${rightInventory.manifest.occurrence_count} occurrences (${leftInventory.ids.length} + ${rightInventory.ids.length} pages of 500)`,
  "compare",
  null,
);
summary.push(() =>
  compared
    ? `compare_artifacts: status ${compared.result.status}, summary ${
      JSON.stringify(compared.result.summary)
    }, median ${median("compare").toFixed(1)} ms`
    : null
);
