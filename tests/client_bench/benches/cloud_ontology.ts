/**
 * The ontology from a client over stdio, on the generated estate (100,000
 * assets at `--size large`, 10,000 at medium, 1,000 at small): each run
 * starts a fresh server with the estate as a `--dataset`, waits for it to
 * load, then times `ontology_stats` twice (the first call builds the
 * ontology in the server's worker; the second reuses it) and a few
 * `sparql_query` calls. The peer is the same oxigraph engine in a plain Deno
 * process (`peers/oxigraph_store.ts`) loading the server's own N-Triples
 * export of that ontology and running the same query texts, so each ratio is
 * what our build, worker hop and MCP layer add to the engine's own work:
 *
 * - first `ontology_stats` (build + stats) beside the peer's N-Triples load;
 * - warm `ontology_stats` beside the peer computing the same stats;
 * - each `sparql_query` beside the peer's `store.query` reading every row.
 *
 * Figures: triples, the server's peak RSS while building above its RSS after
 * the dataset loaded (the peak is reset first), and the peer's peak
 * (`/usr/bin/time -f %M`).
 *
 * @module
 */

import { guardSparql } from "../../../src/cloud/ontology/sparql_guard.ts";
import { generateEstate } from "../../helpers/cloud_generated_estate.ts";
import { ONTOLOGY_BENCH_QUERIES as QUERIES } from "../../helpers/cloud_ontology_queries.ts";
import {
  type BenchContext,
  BenchServer,
  type PairedResult,
  runPeer,
  type ServerSpec,
  spread,
  SRC_DIR,
  structured,
  type TimedCall,
} from "../harness.ts";

const PEER = new URL("../peers/oxigraph_store.ts", import.meta.url).pathname;
const SIZES = { small: 1_000, medium: 10_000, large: 100_000 } as const;
const LIMIT = 1000;
const MiB = 2 ** 20;

interface PeerOutput {
  triples: number;
  loadMs: number;
  statsMs: number;
  queries: Record<string, { ms: number; rows: number }>;
}

/** One server run: the timings of every measure, and the build's peak above the loaded RSS. */
interface ServerRun {
  build: number;
  warm: number;
  /** Each query's time and the rows it returned, by label. */
  queries: Record<string, { ms: number; rows: number }>;
  triples: number;
  growth: number;
  loaded: number;
}

function serverSpec(dir: string, path: string, outputDir?: string): ServerSpec {
  const args = ["--dataset", `bench=${path}`];
  if (outputDir) args.push("--output-dir", outputDir, "--allow-file-writes");
  return {
    roots: [dir],
    args,
    ...(outputDir ? { allowWrite: [outputDir] } : {}),
  };
}

async function serverRun(dir: string, path: string): Promise<ServerRun> {
  const server = await BenchServer.start(serverSpec(dir, path));
  try {
    // Waits for the --dataset preload, so the build is timed alone.
    const status = resultOf(await server.call("list_datasets"));
    if (!JSON.stringify(status).includes('"bench"')) {
      throw new Error(`the estate was not loaded: ${server.stderr}`);
    }
    // The preload's own peak is not the build's.
    await server.resetPeak();
    const loaded = (await server.memory()).rss;
    const first = await server.call("ontology_stats", { dataset: "bench" });
    const firstResult = resultOf(first);
    if (firstResult.built_now !== true) throw new Error("the first ontology_stats did not build");
    const growth = (await server.memory()).peak - loaded;
    const warm = await server.call("ontology_stats", { dataset: "bench" });
    if (resultOf(warm).built_now !== false) throw new Error("the second ontology_stats rebuilt");
    const queries: ServerRun["queries"] = {};
    for (const [label, query] of Object.entries(QUERIES)) {
      const call = await server.call("sparql_query", { dataset: "bench", query, limit: LIMIT });
      const result = resultOf(call);
      const rows = Number(result.returned ?? (result.answer === undefined ? 0 : 1));
      queries[label] = { ms: call.ms, rows };
    }
    return {
      build: first.ms,
      warm: warm.ms,
      queries,
      triples: Number(firstResult.triples),
      growth,
      loaded,
    };
  } finally {
    await server.close();
  }
}

/** The tool's `result` (the server wraps every result as `{ result }`). */
function resultOf(call: TimedCall): Record<string, unknown> {
  return structured(call).result as Record<string, unknown>;
}

function pairedOf(
  label: string,
  peer: string,
  subject: number[],
  peerTimes: number[],
): PairedResult {
  return {
    label,
    peer,
    subject,
    peerTimes,
    ratios: spread(subject.map((value, i) => value / peerTimes[i]!)),
    target: null,
  };
}

/** Runs the ontology measures. */
export default async function cloudOntology(ctx: BenchContext): Promise<void> {
  const size = SIZES[ctx.size];
  const dir = ctx.tempDir;
  const path = `${dir}/estate.json`;
  const outputDir = `${dir}/out`;
  await Deno.mkdir(outputDir);
  const { records } = generateEstate(size, 11);
  await Deno.writeTextFile(
    path,
    JSON.stringify({ assets: records.assets, edges: records.edges, findings: records.findings }),
  );
  ctx.log(`estate: ${records.assets.length} assets, ${records.edges.length} edges`);

  // The peer's input: the server's own N-Triples export of the same dataset.
  const exporter = await BenchServer.start(serverSpec(dir, path, outputDir));
  try {
    await exporter.call("export_ontology", { dataset: "bench", format: "nt", filename: "bench" });
  } finally {
    await exporter.close();
  }
  const dump = `${outputDir}/bench.nt`;
  ctx.log(`N-Triples export: ${((await Deno.stat(dump)).size / MiB).toFixed(0)} MiB`);
  const queriesPath = `${dir}/queries.json`;
  await Deno.writeTextFile(
    queriesPath,
    JSON.stringify(
      Object.fromEntries(
        Object.entries(QUERIES).map(([label, q]) => [label, guardSparql(q, { limit: LIMIT }).text]),
      ),
    ),
  );
  const peerArgs = [
    Deno.execPath(),
    "run",
    "--no-prompt",
    `--allow-read=${dir},${SRC_DIR}`,
    PEER,
    dump,
    queriesPath,
  ];

  const ours: ServerRun[] = [];
  const theirs: PeerOutput[] = [];
  const peerPeaks: number[] = [];
  for (let i = 0; i <= ctx.runs; i++) {
    const run = await serverRun(dir, path);
    const peer = await runPeer(peerArgs, { measurePeak: true, captureStdout: true });
    const output = JSON.parse(peer.stdout ?? "") as PeerOutput;
    if (output.triples !== run.triples) {
      throw new Error(`the peer loaded ${output.triples} triples, the server built ${run.triples}`);
    }
    for (const label of Object.keys(QUERIES)) {
      const rows = output.queries[label]!.rows;
      // The gate asks for limit + 1 rows, to tell the client that more matched.
      if (Math.min(rows, LIMIT) !== run.queries[label]!.rows) {
        throw new Error(
          `${label}: the peer read ${rows} rows, the server returned ${run.queries[label]!.rows}`,
        );
      }
    }
    ctx.log(`run ${i}: build ${run.build.toFixed(0)} ms, peer load ${output.loadMs.toFixed(0)} ms`);
    if (i === 0) continue;
    ours.push(run);
    theirs.push(output);
    if (peer.peak !== undefined) peerPeaks.push(peer.peak);
  }

  const triples = ours[0]!.triples;
  ctx.pairedResult(
    pairedOf(
      `ontology_stats, first call: build (${size} assets, ${triples} triples)`,
      "oxigraph N-Triples load",
      ours.map((r) => r.build),
      theirs.map((p) => p.loadMs),
    ),
  );
  ctx.pairedResult(
    pairedOf(
      "ontology_stats, warm",
      "same stats on the store",
      ours.map((r) => r.warm),
      theirs.map((p) => p.statsMs),
    ),
  );
  for (const label of Object.keys(QUERIES)) {
    ctx.pairedResult(
      pairedOf(
        `sparql_query: ${label} (${ours[0]!.queries[label]!.rows} rows)`,
        "store.query",
        ours.map((r) => r.queries[label]!.ms),
        theirs.map((p) => p.queries[label]!.ms),
      ),
    );
  }
  const growth = spread(ours.map((r) => r.growth));
  ctx.figure({
    label: `ontology build peak (${size} assets)`,
    value: `${(growth.median / MiB).toFixed(0)} MiB`,
    note: `server VmHWM after the first ontology_stats − its RSS with the dataset loaded (${
      (spread(ours.map((r) => r.loaded)).median / MiB).toFixed(0)
    } MiB); min ${(growth.min / MiB).toFixed(0)} max ${(growth.max / MiB).toFixed(0)} MiB`,
  });
  if (peerPeaks.length) {
    ctx.figure({
      label: "peer peak RSS",
      value: `${(spread(peerPeaks).median / MiB).toFixed(0)} MiB`,
      note: "whole peer process: engine, N-Triples text and store",
    });
  }
}
