/**
 * Ontology benchmarks on generated estates of 1,000 and 10,000 assets:
 * build time (in-process and in the worker, input transfer included), the
 * store's size and memory, and a few SPARQL queries on the built store.
 * `CLOUD_ONTOLOGY_BENCH_100K=1` adds the 100,000-asset estate of the issue
 * (several minutes: one build per variant, three runs per query);
 * `CLOUD_ONTOLOGY_BENCH_SIZES=100000` runs only the sizes listed.
 *
 *   deno bench --no-prompt --allow-read --allow-env tests/cloud_ontology_bench.ts
 */

import { type OntologyInput, ontologyInputFromView } from "../src/cloud/ontology/abox.ts";
import { buildOntology } from "../src/cloud/ontology/build.ts";
import { dumpOntology } from "../src/cloud/ontology/formats.ts";
import { OntologyEngine } from "../src/cloud/ontology/engine.ts";
import type { Store } from "../src/cloud/ontology/oxigraph.ts";
import { RagChunkIndex } from "../src/cloud/ontology/rag_chunks.ts";
import { guardSparql } from "../src/cloud/ontology/sparql_guard.ts";
import { runSparql } from "../src/cloud/ontology/sparql_run.ts";
import { ontologyStats } from "../src/cloud/ontology/stats.ts";
import { measure, reportMedian } from "./helpers/bench_stats.ts";
import { makeView } from "./helpers/cloud_estate.ts";
import { generateEstate } from "./helpers/cloud_generated_estate.ts";
import { ONTOLOGY_BENCH_QUERIES as QUERIES } from "./helpers/cloud_ontology_queries.ts";

const SIZES = Deno.env.get("CLOUD_ONTOLOGY_BENCH_SIZES")?.split(",").map(Number) ??
  (Deno.env.get("CLOUD_ONTOLOGY_BENCH_100K") ? [1_000, 10_000, 100_000] : [1_000, 10_000]);

const inputs = new Map<number, OntologyInput>();
const stores = new Map<number, Store>();
const facts: string[] = [];

for (const size of SIZES) {
  const input = ontologyInputFromView(makeView(generateEstate(size, 11).records));
  inputs.set(size, input);
  const heapBefore = Deno.memoryUsage().heapUsed;
  const rssBefore = Deno.memoryUsage().rss;
  const built = await buildOntology(input);
  stores.set(size, built.store);
  const after = Deno.memoryUsage();
  const stats = ontologyStats(built.store);
  facts.push(
    `${size} assets, ${input.edges.length} edges, ${input.findings.length} findings → ` +
      `${built.triples} triples (${stats.individuals} individuals, ${stats.relation_triples} ` +
      `relation triples); first build ${built.buildMs.toFixed(0)} ms; ` +
      `rss +${((after.rss - rssBefore) / 2 ** 20).toFixed(0)} MiB, ` +
      `JS heap +${((after.heapUsed - heapBefore) / 2 ** 20).toFixed(0)} MiB`,
  );
}

globalThis.addEventListener("unload", () => {
  console.log(`\nontology sizes:\n  ${facts.join("\n  ")}`);
});

for (const size of SIZES) {
  const input = inputs.get(size)!;
  const store = stores.get(size)!;
  const runs = size >= 100_000 ? 1 : size >= 10_000 ? 3 : 10;
  const warmup = size >= 100_000 ? 0 : 1;

  const buildName = `build ${size} assets (in-process)`;
  Deno.bench({ name: buildName, group: `build ${size}`, n: runs, warmup }, async (b) => {
    await measure(buildName, b, () => buildOntology(input));
  });
  reportMedian(buildName, buildName, null);

  const workerName = `build ${size} assets (worker, input sent)`;
  Deno.bench({ name: workerName, group: `build ${size}`, n: runs, warmup }, async (b) => {
    const engine = new OntologyEngine({ isolation: "worker" });
    try {
      await measure(workerName, b, () => engine.ensure(`bench:${size}`, () => input));
    } finally {
      engine.close();
    }
  });
  reportMedian(workerName, workerName, null);

  for (const [label, query] of Object.entries(QUERIES)) {
    const name = `${label} (${size} assets)`;
    const prepared = guardSparql(query, { limit: 1000 });
    Deno.bench({
      name,
      group: `queries ${size}`,
      n: size >= 100_000 ? 3 : size >= 10_000 ? 10 : 30,
    }, async (b) => {
      await measure(name, b, () => runSparql(store, prepared));
    });
    reportMedian(name, name, null);
  }

  const turtle = `dump Turtle (${size} assets)`;
  Deno.bench({ name: turtle, group: `exports ${size}`, n: size >= 100_000 ? 1 : 5 }, async (b) => {
    await measure(turtle, b, () => dumpOntology(store, "turtle"));
  });
  reportMedian(turtle, turtle, null);

  const chunks = `RAG index + community page (${size} assets)`;
  Deno.bench({ name: chunks, group: `exports ${size}`, n: size >= 100_000 ? 1 : 5 }, async (b) => {
    await measure(chunks, b, () => new RagChunkIndex(input).page({ chunkType: "community" }));
  });
  reportMedian(chunks, chunks, null);
}
