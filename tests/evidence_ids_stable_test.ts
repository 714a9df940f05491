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
  // Re-recorded when the functions the loader calls (_init, _fini, crt's frame_dummy and
  // __do_global_dtors_aux, which have no FDE) became procedures: the listing, the overview's
  // counts and the dossier's reference scan (crt's call to a helper without an FDE) changed;
  // and again when what those reach (crt's deregister_tm_clones and register_tm_clones) did.
  list_procedures: "ev_d837a017713c6c10fbe36f24ce18ecea2416ba33824c844a9a9614a66ae4c053",
  // Re-recorded when the overview came to report the data after the image (overlay: null here).
  binary_overview: "ev_8060bdb640994c59a3d86716177d18c59993922387c031729dc4896fe22125be",
  search_strings: "ev_8ea65f5ada46f6944b2f1dcbd5e2f539eae66f46391c068b0a51510563173fc8",
  // Re-recorded when calls through the library's own PLT stubs came to name their callee (and
  // the reference scan to report its unresolved calls), again when tail jumps became
  // callers and callees' tail_jumps (and code outside every procedure a limitation of the
  // reference scan), and with the loader's functions above (twice: crt's call to its helper is
  // no longer an unknown call target).
  analyze_function: "ev_5323b7918db1a634d01e2a58b417e31e71cb8349982deb583a3b595d3c1eb768",
  // Re-recorded when callees reached through the library's own PLT stubs (jq_compile_args calls
  // jv_get_kind@plt, jv_free@plt and others libjq defines) came with a limitation saying the
  // loader binds them by name.
  procedure_callees: "ev_c54a6e1f2febabb54bb771daa43bf544e932855c7b84a4e815a2634ec3323439",
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
