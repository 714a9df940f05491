/**
 * The ontology peer: the same oxigraph engine the server uses, in a plain
 * Deno process with no MCP layer and no ontology build. It loads an
 * N-Triples dump of the ontology, computes the `ontology_stats` figures over
 * the store, runs each query of a JSON list (the texts the server's query
 * gate would run) and reads every row, then prints its timings as JSON:
 *
 *   deno run --allow-read peers/oxigraph_store.ts DUMP.nt QUERIES.json
 *
 * Output: `{ triples, loadMs, statsMs, queries: { label: { ms, rows } } }`.
 *
 * @module
 */

import { oxigraphReady, Store } from "../../../src/cloud/ontology/oxigraph.ts";
import { ontologyStats } from "../../../src/cloud/ontology/stats.ts";

const [dumpPath, queriesPath] = Deno.args;
if (!dumpPath || !queriesPath) throw new Error("usage: oxigraph_store.ts DUMP.nt QUERIES.json");
const queries = JSON.parse(await Deno.readTextFile(queriesPath)) as Record<string, string>;

await oxigraphReady();
const text = await Deno.readTextFile(dumpPath);
let began = performance.now();
const store = new Store();
store.load(text, { format: "application/n-triples" });
const loadMs = performance.now() - began;

began = performance.now();
const stats = ontologyStats(store);
const statsMs = performance.now() - began;
if (stats.triples !== store.size) throw new Error("the stats disagree with the store's size");

const timed: Record<string, { ms: number; rows: number }> = {};
for (const [label, query] of Object.entries(queries)) {
  began = performance.now();
  const result = store.query(query);
  let rows = 0;
  if (Array.isArray(result)) {
    for (const row of result) {
      // Read every binding, as a client of the engine would.
      if (row instanceof Map) { for (const term of row.values()) void term.value; }
      rows++;
    }
  } else {
    rows = 1;
  }
  timed[label] = { ms: performance.now() - began, rows };
}
console.log(JSON.stringify({ triples: store.size, loadMs, statsMs, queries: timed }));
