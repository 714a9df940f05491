/**
 * Cloud load throughput and true peak memory per input kind, from a client
 * over stdio: for each kind a seeded input is generated once (the writers of
 * `helpers/cloud_import_generators.ts`), then every run starts a fresh server
 * (its root the input's directory), reads its idle RSS, times `load_dataset`
 * on the input and reads the server's VmHWM afterwards. The peer is
 * `jq . FILE > /dev/null` on the same bytes (every JSON file of the AWS dump;
 * the JSON after the first line of ScoutSuite's `.js`), its peak from
 * `/usr/bin/time -f %M` when present.
 *
 * Figures per kind: MB/s (ours and jq's), the load's peak above idle
 * (VmHWM − idle VmRSS) and that peak as a multiple k of the input size — the
 * figure `--max-dataset-bytes` is sized by. Sizes: large ≈ 60 MB per kind and
 * a 100,000-resource Terraform state (≈ 200 MB); medium a quarter; small a
 * twentieth; `CLOUD_LOAD_SCALE=4` multiplies the large sizes instead (to load a
 * file near `--max-dataset-bytes`). `CLOUD_LOAD_KINDS=terraform-state,trivy`
 * runs only those kinds.
 *
 * @module
 */

import { IMPORT_INPUTS, scaledCount } from "../../helpers/import_bench.ts";
import {
  type BenchContext,
  BenchServer,
  onPath,
  paired,
  runPeer,
  spread,
  structured,
} from "../harness.ts";

const SCALES = { small: 0.05, medium: 0.25, large: 1 } as const;

const MiB = 2 ** 20;

/** Runs the load measures. */
export default async function cloudLoad(ctx: BenchContext): Promise<void> {
  const hasJq = await onPath("jq");
  if (!hasJq) ctx.log("jq is not installed: the peer column is left out");
  const only = Deno.env.get("CLOUD_LOAD_KINDS")?.split(",").map((k) => k.trim());
  const kinds = only
    ? IMPORT_INPUTS.filter((k) => only.includes(k.label) || only.includes(k.kind))
    : IMPORT_INPUTS;
  const scale = Number(Deno.env.get("CLOUD_LOAD_SCALE") ?? SCALES[ctx.size]);
  if (!(scale > 0)) throw new Error("CLOUD_LOAD_SCALE takes a positive number");
  for (const kind of kinds) {
    const dir = await Deno.makeTempDir({ dir: ctx.tempDir, prefix: "load-" });
    const path = `${dir}/${kind.name}`;
    const began = performance.now();
    const count = scaledCount(kind.count, scale);
    const what = kind.what(count);
    const bytes = await kind.write(path, count);
    ctx.log(
      `${kind.label}: ${what}, ${(bytes / MiB).toFixed(1)} MiB written in ${
        ((performance.now() - began) / 1000).toFixed(1)
      } s`,
    );
    const jqArgs = await kind.jq(path);
    const growth: number[] = [];
    const idle: number[] = [];
    const jqPeaks: number[] = [];
    let records = "";
    let first = true;
    const result = await paired(`${kind.label} load_dataset (${(bytes / MiB).toFixed(0)} MiB)`, {
      peer: "jq . FILE",
      runs: ctx.runs,
      subject: async () => {
        const server = await BenchServer.start({ roots: [dir] });
        try {
          // The start-up peak is not the load's.
          await server.resetPeak();
          const before = await server.memory();
          const call = await server.call("load_dataset", { path });
          const after = await server.memory();
          const result = structured(call).result as Record<string, unknown>;
          const summary = result.summary as Record<string, unknown>;
          if (summary.kind !== kind.kind) {
            throw new Error(`${kind.label} was read as ${summary.kind}, not ${kind.kind}`);
          }
          records = `${summary.total_assets} assets, ${summary.total_edges} edges, ` +
            `${summary.total_findings} findings`;
          if (!first) {
            growth.push(after.peak - before.rss);
            idle.push(before.rss);
          }
          first = false;
          return call.ms;
        } finally {
          await server.close();
        }
      },
      peerRun: async () => {
        if (!hasJq) return NaN;
        const run = await runPeer(jqArgs, { measurePeak: true });
        if (run.peak !== undefined) jqPeaks.push(run.peak);
        return run.ms;
      },
    });
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    if (hasJq) ctx.pairedResult(result);
    const ours = spread(result.subject).median;
    const jq = spread(result.peerTimes).median;
    const peak = spread(growth);
    const mb = bytes / 1e6;
    ctx.figure({
      label: `${kind.label}: throughput`,
      value: `${(mb / (ours / 1000)).toFixed(1)} MB/s`,
      note: `${what}, ${mb.toFixed(1)} MB → ${records}` +
        (hasJq ? `; jq ${(mb / (jq / 1000)).toFixed(1)} MB/s` : ""),
    });
    const jqPeak = jqPeaks.length ? spread(jqPeaks.slice(1)).median : NaN;
    ctx.figure({
      label: `${kind.label}: peak RSS of the load`,
      value: `${(peak.median / MiB).toFixed(0)} MiB = ${(peak.median / bytes).toFixed(1)}× file`,
      note: `VmHWM − idle VmRSS (idle ${(spread(idle).median / MiB).toFixed(0)} MiB), ` +
        `min ${(peak.min / bytes).toFixed(1)}× max ${(peak.max / bytes).toFixed(1)}×` +
        (Number.isNaN(jqPeak)
          ? ""
          : `; jq peak ${(jqPeak / MiB).toFixed(0)} MiB = ${(jqPeak / bytes).toFixed(1)}× file`),
    });
  }
}
