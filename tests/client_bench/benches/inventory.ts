/**
 * Inventory throughput, client-side: `inventory_artifact` (every page, each
 * collection followed by its own `next_offset`) of a tar of many small files
 * and directories (≥ 300 MB, ≥ 8,000 members, built from /usr/lib and
 * /usr/share) and of a tar of a few large files, each paired with
 * `sha256sum` of the same tar. The target opens with `open_binary` before
 * each timed inventory (not timed: it hashes the file once), so every run
 * scans afresh. Targets: ≥ 60 % of sha256sum's throughput on the small
 * files (time ratio ≤ 1.67×), ≥ 100 % on the large ones (≤ 1.0×). For the
 * small files, also the transport floor of the pages after the scan (the
 * same pages, stored, from a minimal SDK server) and the scan plus that
 * floor against sha256sum: the least the whole inventory could take.
 *
 * Then a growth table: the many-small-files inventory at three sizes (every
 * 4th, every 2nd and every entry of the same directories), time per MiB and
 * per member beside sha256sum's.
 *
 * @module
 */

import type { BenchContext } from "../harness.ts";
import { BenchServer, onPath, paired, runPeer, spread, structured } from "../harness.ts";
import {
  type BenchTar,
  buildFewLargeFilesTar,
  buildManySmallFilesTar,
} from "../../helpers/inventory_tars.ts";
import { startPageFloor } from "../page_floor.ts";

const MB = 2 ** 20;
/** Every traversal limit at its upper bound, so nothing in these tars is cut short. */
const LIMITS = {
  max_entries: 1_000_000,
  max_total_bytes: 64 * 1024 ** 3,
  max_entry_bytes: 4 * 1024 ** 3,
  max_depth: 100,
};
/** The many-small-files tar: its size and members. */
const SMALL_FILES = { targetBytes: 300 * MB, minMembers: 8_000 };
/** The growth table: every 4th, every 2nd and every entry of the same directories. */
const GROWTH = [
  { size: "small (¼)", every: 4 },
  { size: "medium (½)", every: 2 },
  { size: "large (all)", every: 1 },
] as const;

interface PageCursor {
  next_offset: number | null;
  items: unknown[];
}

/** What one full inventory returned. */
interface InventoryRun {
  ms: number;
  /** The first page's time: the scan, then one page. */
  firstMs: number;
  /** CPU time of the server and of this client over every page, in milliseconds. */
  cpuMs: number;
  pages: number;
  bytes: number;
  occurrences: number;
  complete: boolean;
}

/**
 * Opens `path` (untimed) after switching away from it (reopening the same
 * target keeps its scans), then times every page of a fresh inventory.
 */
async function inventoryAllPages(
  server: BenchServer,
  path: string,
  other: string,
  keep?: Record<string, unknown>[],
): Promise<InventoryRun> {
  await server.call("open_binary", { path: other });
  await server.call("open_binary", { path });
  const offsets = { node: 0, occurrence: 0, edge: 0 };
  const cpuBefore = await bothCpuMs(server);
  const run: InventoryRun = {
    ms: 0,
    firstMs: 0,
    cpuMs: 0,
    pages: 0,
    bytes: 0,
    occurrences: 0,
    complete: false,
  };
  for (;;) {
    const call = await server.call("inventory_artifact", {
      ...LIMITS,
      node_offset: offsets.node ?? 0,
      node_limit: 500,
      occurrence_offset: offsets.occurrence ?? 0,
      occurrence_limit: 500,
      edge_offset: offsets.edge ?? 0,
      edge_limit: 500,
    });
    run.ms += call.ms;
    if (run.pages === 0) run.firstMs = call.ms;
    run.bytes += call.bytes;
    run.pages++;
    keep?.push(call.result);
    const result = structured(call).result as Record<string, unknown>;
    const manifest = result.manifest as { complete: boolean };
    run.complete = manifest.complete;
    const occurrences = result.occurrences as PageCursor;
    run.occurrences += occurrences.items.length;
    const next = {
      node: (result.nodes as PageCursor).next_offset,
      occurrence: occurrences.next_offset,
      edge: (result.edges as PageCursor).next_offset,
    };
    if (next.node === null && next.occurrence === null && next.edge === null) break;
    offsets.node = next.node ?? offsets.node;
    offsets.occurrence = next.occurrence ?? offsets.occurrence;
    offsets.edge = next.edge ?? offsets.edge;
    // A collection already read to its end is asked for past its end (an empty page).
    if (next.node === null) offsets.node = Number.MAX_SAFE_INTEGER;
    if (next.occurrence === null) offsets.occurrence = Number.MAX_SAFE_INTEGER;
    if (next.edge === null) offsets.edge = Number.MAX_SAFE_INTEGER;
  }
  run.cpuMs = await bothCpuMs(server) - cpuBefore;
  if (!run.complete) throw new Error(`the inventory of ${path} is incomplete`);
  return run;
}

/**
 * The transport floor of the pages after the first (the scan): those of one
 * more run, stored and answered by a minimal SDK server, paired with
 * sha256sum; and what the scan alone plus that floor come to against it.
 */
async function pageFloor(
  ctx: BenchContext,
  server: BenchServer,
  tar: BenchTar,
  other: string,
  scanMs: number,
): Promise<void> {
  const pages: Record<string, unknown>[] = [];
  await inventoryAllPages(server, tar.path, other, pages);
  const later = pages.slice(1);
  if (later.length === 0) return;
  await using floor = await startPageFloor(later, `${ctx.tempDir}/inventory_pages.json`);
  const result = await paired(
    `transport floor: the ${later.length} pages after the scan stored, from a minimal SDK server`,
    {
      peer: "sha256sum",
      runs: ctx.runs,
      target: null,
      subject: () => floor.replay(later.length),
      peerRun: async () => (await runPeer(["sha256sum", tar.path])).ms,
    },
  );
  ctx.pairedResult(result);
  const floorMs = spread(result.subject).median;
  const peerMs = spread(result.peerTimes).median;
  const total = scanMs + floorMs;
  ctx.figure({
    label: "the scan (first page) plus the transport floor of the later pages",
    value: `${total.toFixed(0)} ms = ${(total / peerMs).toFixed(2)}× sha256sum (${
      (100 * peerMs / total).toFixed(0)
    } % of its throughput)`,
    note: `scan ${scanMs.toFixed(0)} ms (median), floor ${floorMs.toFixed(0)} ms, sha256sum ${
      peerMs.toFixed(0)
    } ms: what our work on the later pages adds to`,
  });
}

/**
 * CPU time (user + system) of process `pid` so far, in milliseconds, from
 * /proc (read through `cat`: Deno lets a program read /proc only with
 * --allow-all).
 */
async function cpuMs(pid: number): Promise<number> {
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/stat`], stdout: "piped" })
    .output();
  const stat = new TextDecoder().decode(out.stdout);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time of the server and of this client, in milliseconds. */
async function bothCpuMs(server: BenchServer): Promise<number> {
  return await cpuMs(server.pid) + await cpuMs(Deno.pid);
}

/** One sha256sum run: wall time, and CPU time from GNU time when it is there. */
async function sha256sum(path: string, cpu: number[]): Promise<number> {
  if (!HAVE_TIME) return (await runPeer(["sha256sum", path])).ms;
  const began = performance.now();
  const out = await new Deno.Command("/usr/bin/time", {
    args: ["-f", "%U %S", "sha256sum", path],
    stdout: "null",
    stderr: "piped",
  }).output();
  const ms = performance.now() - began;
  if (!out.success) throw new Error(`sha256sum ${path} failed`);
  const [user, system] = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1)!
    .split(" ").map(Number);
  cpu.push(((user ?? NaN) + (system ?? NaN)) * 1000);
  return ms;
}

const HAVE_TIME = await Deno.stat("/usr/bin/time").then(() => true, () => false);

function describe(tar: BenchTar): string {
  return `${
    (tar.bytes / MB).toFixed(0)
  } MiB, ${tar.members} members, ${tar.directories} directories`;
}

/** Runs the inventory measures. */
export default async function inventory(ctx: BenchContext): Promise<void> {
  if (!(await onPath("sha256sum")) || !(await onPath("tar"))) {
    ctx.log("skipped: sha256sum or tar is missing");
    return;
  }
  const growth: { size: string; tar: BenchTar }[] = [];
  for (const { size, every } of GROWTH) {
    const name = `small_every_${every}`;
    const tar = await buildManySmallFilesTar(ctx.tempDir, { ...SMALL_FILES, every, name });
    if (tar) growth.push({ size, tar });
  }
  const small = growth.find((entry) => entry.size === "large (all)")?.tar ?? null;
  const large = await buildFewLargeFilesTar(ctx.tempDir, { targetBytes: 300 * MB, maxFiles: 4 });
  // A small second artifact to switch to between runs.
  const other = `${ctx.tempDir}/switch`;
  await Deno.mkdir(other);
  await Deno.writeTextFile(`${other}/empty.txt`, "");
  const server = await BenchServer.start({ roots: [ctx.tempDir] });
  try {
    for (
      const [tar, label, target] of [
        [small, "many small files", 1.67],
        [large, "a few large files", 1.0],
      ] as const
    ) {
      if (!tar) {
        ctx.log(`skipped the ${label} tar: this machine has too little under /usr`);
        continue;
      }
      ctx.log(`${label}: ${describe(tar)}`);
      const runs: InventoryRun[] = [];
      const peerCpu: number[] = [];
      const result = await paired(`inventory_artifact, every page: tar of ${label}`, {
        peer: "sha256sum",
        runs: ctx.runs,
        target,
        subject: async () => {
          const run = await inventoryAllPages(server, tar.path, other);
          runs.push(run);
          return run.ms;
        },
        peerRun: () => sha256sum(tar.path, peerCpu),
      });
      ctx.pairedResult(result);
      if (tar === small) {
        const scanMs = spread(runs.slice(1).map((r) => r.firstMs)).median;
        await pageFloor(ctx, server, tar, other, scanMs);
      }
      // CPU time, ours (server and client) against sha256sum's: steadier than wall time on a
      // shared machine. The first pair is dropped, as in the wall-time ratios.
      const cpuRatios = spread(runs.slice(1).map((run, i) => run.cpuMs / peerCpu[i + 1]!));
      if (peerCpu.length === runs.length && runs.length > 1) {
        ctx.figure({
          label: `CPU time, inventory of the ${label} tar against sha256sum`,
          value: `${cpuRatios.min.toFixed(2)}× / ${cpuRatios.median.toFixed(2)}× / ${
            cpuRatios.max.toFixed(2)
          }× (min / median / max)`,
          note: `ours ${
            spread(runs.slice(1).map((r) => r.cpuMs)).median.toFixed(0)
          } ms (server and client), sha256sum ${spread(peerCpu.slice(1)).median.toFixed(0)} ms`,
        });
      }
      const ours = spread(result.subject).median;
      const theirs = spread(result.peerTimes).median;
      const last = runs.at(-1)!;
      ctx.figure({
        label: `inventory of the ${label} tar`,
        value: `${(tar.bytes / MB / (ours / 1000)).toFixed(0)} MiB/s, ${
          (100 * theirs / ours).toFixed(0)
        } % of sha256sum's ${(tar.bytes / MB / (theirs / 1000)).toFixed(0)} MiB/s`,
        note: `${describe(tar)}; first page (the scan) ${
          spread(runs.slice(1).map((r) => r.firstMs)).median.toFixed(0)
        } ms; ${last.pages} pages, ${(last.bytes / MB).toFixed(1)} MiB on the wire, ${
          (last.bytes / Math.max(1, last.occurrences)).toFixed(0)
        } bytes per occurrence`,
      });
    }
    // Growth: each size once per run, paired with sha256sum in the same loop.
    const growthRuns = Math.min(ctx.runs, 3);
    for (const { size, tar } of growth) {
      const cpu: number[] = [];
      const peerCpu: number[] = [];
      const result = await paired(`inventory growth (${size})`, {
        peer: "sha256sum",
        runs: growthRuns,
        subject: async () => {
          const run = await inventoryAllPages(server, tar.path, other);
          cpu.push(run.cpuMs);
          return run.ms;
        },
        peerRun: () => sha256sum(tar.path, peerCpu),
      });
      const ours = spread(result.subject).median;
      const oursCpu = spread(cpu.slice(1)).median;
      ctx.figure({
        label: `inventory growth, ${size}: ${describe(tar)}`,
        value: `${ours.toFixed(0)} ms wall, ${oursCpu.toFixed(0)} ms CPU (${
          (oursCpu / (tar.bytes / MB)).toFixed(1)
        } ms/MiB, ${(1000 * oursCpu / tar.members).toFixed(0)} µs/member)`,
        note: `sha256sum ${spread(result.peerTimes).median.toFixed(0)} ms wall, ${
          spread(peerCpu.slice(1)).median.toFixed(0)
        } ms CPU; wall ratio ${result.ratios.median.toFixed(2)}×`,
      });
    }
  } finally {
    await server.close();
  }
}
