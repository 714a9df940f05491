/**
 * Evidence ids of the apps workbench are content ids: the same observation
 * of the same bytes gets the same id in every run and every version of the
 * server. These ids were recorded with the server as it was before the core
 * was opened to a second workbench (commit 57da4de), on the libjq1 package in
 * the shared fixtures; they must be reproduced exactly.
 */

import assert from "node:assert/strict";
import { type Loose, ok, withClient } from "./helpers/in_memory.ts";
import { inventoryAll } from "./helpers/inventory.ts";
import { FIXTURES, haveJqFixtures, LIBJQ, OLD } from "./helpers/jq_fixtures.ts";

// An inventory page's record names the artifact's real path, so its id depends on where the
// fixtures lie; the binary observations below do not, and are compared.
const RECORDED = {
  list_documents: "ev_d53b56e1c7e84ffa289a748f294346bc76bbe3fbf367c1d91b5b3e6a7b218e77",
  list_procedures: "ev_2d92419a8beedd17a8f6332aa65095376bfde101d380866f32f138afe67c7749",
  binary_overview: "ev_9efc8738cd1dbd1313fd12d57df77aea830c8683afb9985325f5dd9e24404a0d",
  search_strings: "ev_8ea65f5ada46f6944b2f1dcbd5e2f539eae66f46391c068b0a51510563173fc8",
  // Re-recorded when calls through the library's own PLT stubs came to name their callee (and
  // the reference scan to report its unresolved calls), and again when tail jumps became
  // callers and callees' tail_jumps (and code outside every procedure a limitation of the
  // reference scan): these two observations changed.
  analyze_function: "ev_d26f7f3384ac98b4a6d4bbdfb663f8719f53943fa1e19ab880e01587dea32023",
  procedure_callees: "ev_b05a60d85506ddcc775985adb66654ee9d13540195cc1f89d4843376b1556b64",
};

Deno.test({
  name: "Evidence ids recorded before the core refactor are reproduced for the same observations",
  ignore: !haveJqFixtures("evidence_ids_stable_test"),
  fn: async () => {
    await withClient({ roots: [FIXTURES] }, async (client) => {
      const seen: Record<string, string> = {};
      await ok(client, "open_binary", { path: OLD });
      const inventory = await inventoryAll(client);
      const library = inventory.occurrences.find((o: Loose) => o.logical_path === LIBJQ);
      await ok(client, "open_binary", { occurrence_id: library.occurrence_id });
      seen.list_documents = (await ok(client, "list_documents")).evidence_id;
      seen.list_procedures = (await ok(client, "list_procedures", { offset: 10, limit: 5 }))
        .evidence_id;
      seen.binary_overview = (await ok(client, "binary_overview")).evidence_id;
      seen.search_strings = (await ok(client, "search_strings", { query: "Repeat", limit: 5 }))
        .evidence_id;
      seen.analyze_function =
        (await ok(client, "analyze_function", { procedure: "jv_mem_alloc" })).evidence_id;
      seen.procedure_callees =
        (await ok(client, "procedure_callees", { procedure: "jq_compile_args" })).evidence_id;
      assert.deepEqual(seen, RECORDED);
    });
  },
});
