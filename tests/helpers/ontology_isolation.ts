/**
 * Test helper run as a separate process with the permissions under test:
 * without read access to `src/cloud` the ontology worker cannot load, so the
 * engine must fall back to running in-process and say so; with it (as the
 * start task grants) queries run in the worker. Prints the structured results
 * of ontology_stats and sparql_query as one JSON line.
 *
 * @module
 */

import { connect, ok } from "./in_memory.ts";
import { cloudWorkbenchWith } from "../../src/cloud/workbench.ts";

const { client, close } = await connect({ workbenches: [cloudWorkbenchWith({ demo: true })] });
try {
  const stats = await ok(client, "ontology_stats");
  const query = await ok(client, "sparql_query", {
    query: "SELECT (COUNT(?a) AS ?n) WHERE { ?a a cm:ComputeInstance }",
  });
  console.log(JSON.stringify({ stats: stats.result, query: query.result }));
} finally {
  await close();
}
