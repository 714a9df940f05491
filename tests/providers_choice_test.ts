/**
 * Choosing an analysis provider: with two usable, `auto` refuses and says
 * which ids to pass; a provider_id given with an archive applies to the
 * members opened from it; provider_id completion offers only what can be
 * used. On the real libjq1 package of the shared fixtures.
 */

import assert from "node:assert/strict";
import { fails, hasProgram, type Loose, ok, run, withClient } from "./helpers/in_memory.ts";
import { FIXTURES, LIBJQ, OLD } from "./helpers/jq_fixtures.ts";
import { withTempDir } from "./helpers/temp_dir.ts";

const OBJDUMP = hasProgram("objdump");
if (!OBJDUMP) console.log("skip: objdump is missing; the two-provider tests are ignored");
const JQ = await Deno.stat(OLD).then(() => true, () => false);
if (!JQ) console.log(`skip: ${FIXTURES} is absent; the archive-member tests are ignored`);

/** The libjq occurrence of the opened package's inventory. */
async function libjqOccurrence(client: Parameters<typeof ok>[0]): Promise<string> {
  const page = (await ok(client, "inventory_artifact", { occurrence_limit: 500 })).result;
  const found = page.occurrences.items.find((o: Loose) => o.logical_path === LIBJQ);
  assert.ok(found, `the inventory lists ${LIBJQ}`);
  return found.occurrence_id;
}

Deno.test({
  name: "open_binary with auto and two usable providers names the provider_ids to pass",
  ignore: !OBJDUMP,
  fn: async () => {
    await withTempDir(async (dir) => {
      const path = `${dir}/prog`;
      await Deno.writeTextFile(`${path}.c`, "int main(void) { return 0; }\n");
      await run("cc", ["-o", path, `${path}.c`]);
      await withClient({ roots: [dir], allowProcessLaunch: true }, async (client) => {
        const refused = await fails(client, "open_binary", { path });
        assert.equal(refused.details.reason, "ambiguous");
        assert.match(refused.message, /pass provider_id/);
        const action: string = refused.remediation.action;
        assert.match(action, /provider_id "native" or "objdump"/);
        assert.doesNotMatch(action, /use auto/, "auto is what just failed");
        const opened = await ok(client, "open_binary", { path, provider_id: "native" });
        assert.equal(opened.result.analysis_provider_binding.provider.id, "native");
      });
    }, { prefix: "casefile-providers-", realPath: true });
  },
});

Deno.test({
  name: "a provider_id given with an archive applies to the members opened from it",
  ignore: !JQ,
  fn: async () => {
    await withClient({ roots: [FIXTURES] }, async (client) => {
      const opened = await ok(client, "open_binary", { path: OLD, provider_id: "native" });
      assert.equal(opened.result.target, null);
      assert.notEqual(opened.result.artifact_target, null);
      const member = await ok(client, "open_binary", {
        occurrence_id: await libjqOccurrence(client),
      });
      const binding = member.result.analysis_provider_binding;
      assert.equal(binding.provider.id, "native");
      assert.equal(binding.selection_source, "request", "chosen with the archive, not by auto");
      // An id no provider has is refused when the archive is opened, before anything is read.
      const unknown = await fails(client, "open_binary", { path: OLD, provider_id: "ghidra" });
      assert.equal(unknown.code, "provider_unavailable");
      assert.equal(unknown.details.reason, "unknown_provider");
    });
  },
});

Deno.test({
  name: "an explicit objdump choice with an archive never falls back for its in-memory members",
  ignore: !JQ || !OBJDUMP,
  fn: async () => {
    await withClient({ roots: [FIXTURES], allowProcessLaunch: true }, async (client) => {
      await ok(client, "open_binary", { path: OLD, provider_id: "objdump" });
      const refused = await fails(client, "open_binary", {
        occurrence_id: await libjqOccurrence(client),
      });
      assert.equal(refused.code, "provider_unavailable");
      assert.match(refused.message, /held in memory/);
    });
  },
});

Deno.test({
  name: "provider_id completion offers objdump only when binary_session reports it available",
  fn: async () => {
    for (const allowProcessLaunch of [false, true]) {
      await withClient({ roots: ["/usr/bin"], allowProcessLaunch }, async (client) => {
        const status = (await ok(client, "binary_session")).result;
        const available = status.analysis_provider_candidates
          .filter((c: Loose) => c.availability.status === "available")
          .map((c: Loose) => c.provider.id);
        const answer = await client.complete({
          ref: { type: "ref/prompt", name: "investigate_feature" },
          argument: { name: "provider_id", value: "" },
        });
        assert.deepEqual(answer.completion.values, ["auto", ...available]);
        if (!allowProcessLaunch) assert.ok(!answer.completion.values.includes("objdump"));
      });
    }
  },
});
