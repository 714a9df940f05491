/**
 * Output that is not UTF-8 is told apart: each stream records the SHA-256 of
 * its bytes (the peer is sha256sum over the program's own output), and two
 * real runs whose output differs only in such bytes compare as changed.
 */

import assert from "node:assert/strict";
import { hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";
import { capturedStdout, directStdout, withScriptCaptures } from "./helpers/script_capture.ts";

const LINUX = Deno.build.os === "linux";
const READY = LINUX && hasProgram("sh") && hasProgram("sha256sum");
if (!READY) {
  console.log("skip: not Linux or sh/sha256sum missing; the stream byte tests are ignored");
}

Deno.test({
  name:
    "compare_process_captures tells apart two runs printing only \\377 and \\376 (both decode to U+FFFD), and not two runs of the same byte",
  ignore: !READY,
  fn: async () => {
    await withScriptCaptures(async ({ client, dir, script, capture }) => {
      // dash's printf takes octal escapes: one byte each, neither of them UTF-8.
      const path = await script("byte.sh", 'printf "\\\\$1"');
      const ff = await capture(path, ["377"]);
      const fe = await capture(path, ["376"]);
      const again = await capture(path, ["377"]);
      for (const [answer, octal] of [[ff, "377"], [fe, "376"], [again, "377"]] as const) {
        const bytes = await directStdout(path, dir, [octal]);
        assert.deepEqual([...bytes], [parseInt(octal, 8)], "the peer run prints the one byte");
        const peer = (await run("sh", ["-c", '"$0" "$1" | sha256sum', path, octal])).split(" ")[0];
        assert.equal(answer.result.streams.stdout.sha256, peer, "sha256sum of the same bytes");
        assert.equal(capturedStdout(answer), "\uFFFD", "the frames hold the lossy decoding");
      }
      const compare = (left: Loose, right: Loose): Promise<Loose> =>
        ok(client, "compare_process_captures", {
          left_evidence_id: left.evidence_id,
          right_evidence_id: right.evidence_id,
        });
      const changed = (await compare(ff, fe)).result;
      assert.equal(changed.terminal, "changed", JSON.stringify(changed.details.terminal));
      assert.equal(changed.status, "changed");
      assert.equal(changed.first_divergence.dimension, "terminal");
      const same = (await compare(ff, again)).result;
      assert.equal(same.terminal, "unchanged", JSON.stringify(same.details.terminal));
      assert.notEqual(same.status, "changed", JSON.stringify(same));
    });
  },
});
