/**
 * verify_reconstruction on a compare_artifacts result split over pages: the
 * claim stays unknown (the rule reads a comparison's status only when every
 * change is on one page), and the limitation says which call gives such a
 * page. Following it gives a comparison whose change makes the claim fail.
 * The changed paths come from `diff -rq` on the two trees tar packs.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { hasProgram, type Loose, ok, withTempRoot } from "./helpers/in_memory.ts";
import { inventoryAll } from "./helpers/inventory.ts";
import { runProgram } from "./helpers/programs.ts";

const MISSING = ["tar", "diff"].find((p) => !hasProgram(p));
const IGNORE = MISSING ? `needs ${MISSING} (--allow-run=${MISSING})` : false;
if (IGNORE) console.log(`ignored: ${IGNORE}`);

const FILES = ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "f.txt", "g.txt"];

function claimOn(evidenceId: string): Record<string, unknown> {
  return {
    schema_version: 1,
    name: "the two trees ship the same files",
    claims: [{
      claim_id: "same-files",
      title: "Every file is unchanged",
      comparison_evidence_id: evidenceId,
      kind: "structural-artifact",
      dimension: "overall",
    }],
  };
}

Deno.test({
  name:
    "verify_reconstruction says which compare_artifacts call lists a paged comparison on one page",
  ignore: IGNORE !== false,
  fn: () =>
    withTempRoot("casefile-verify-pages-", async ({ client, dir }) => {
      for (const side of ["old", "new"]) {
        await Deno.mkdir(join(dir, side));
        for (const [i, name] of FILES.entries()) {
          const changed = side === "new" && i % 3 === 0;
          await Deno.writeTextFile(join(dir, side, name), `${name} ${changed ? "v2" : "v1"}\n`);
        }
        const tar = await runProgram("tar", [
          "--mtime=@0",
          "--owner=0",
          "--group=0",
          "--mode=0644",
          "-cf",
          join(dir, `${side}.tar`),
          "-C",
          join(dir, side),
          ...FILES,
        ]);
        assert.equal(tar.code, 0, tar.stderr);
      }
      // The peer: diff names the files that differ (exit 1 when some do).
      const diff = await runProgram("diff", ["-rq", join(dir, "old"), join(dir, "new")]);
      assert.equal(diff.code, 1, diff.stderr);
      const differing = diff.stdout.split("\n").filter(Boolean).length;
      assert.ok(differing >= 2 && differing < FILES.length);

      await ok(client, "open_binary", { path: join(dir, "old.tar") });
      const left = await inventoryAll(client);
      await ok(client, "open_binary", { path: join(dir, "new.tar") });
      const right = await inventoryAll(client);
      const sides = { left_evidence_ids: left.ids, right_evidence_ids: right.ids };
      const paged = await ok(client, "compare_artifacts", {
        ...sides,
        include_unchanged: true,
        limit: 2,
      });
      assert.equal(paged.result.status, "changed");
      assert.equal(paged.result.changes.total, FILES.length);
      assert.notEqual(paged.result.changes.next_offset, null);

      const first = await ok(client, "verify_reconstruction", {
        specification: claimOn(paged.evidence_id),
      });
      const claim = first.result.claims.items[0];
      assert.equal(claim.status, "unknown");
      const note = claim.limitations.find((l: string) => /not complete on one page/.test(l));
      assert.ok(note, JSON.stringify(claim.limitations));
      const asked = /offset 0 and limit (\d+) \(include_unchanged false\)/.exec(note);
      assert.ok(asked, note);
      assert.equal(Number(asked[1]), differing);

      // Doing what the note says gives one page, and the change fails the claim.
      const whole = await ok(client, "compare_artifacts", {
        ...sides,
        offset: 0,
        limit: Number(asked[1]),
        include_unchanged: false,
      });
      assert.equal(whole.result.changes.next_offset, null);
      assert.deepEqual(
        whole.result.changes.items.map((c: Loose) => c.status),
        Array(differing).fill("changed"),
      );
      const second = await ok(client, "verify_reconstruction", {
        specification: claimOn(whole.evidence_id),
      });
      assert.equal(second.result.claims.items[0].status, "fail");
      assert.equal(second.result.claims.items[0].observed_status, "changed");
    }),
});
