/**
 * `close_binary`'s snapshot writes a file although the tool declares no
 * effect: the write goes through the policy gate as its own effect, so a
 * policy that denies file writes refuses it even when the operator allowed
 * writes.
 */

import assert from "node:assert/strict";
import { compilePolicy, gateOptions } from "../src/core/policy/compile.ts";
import { loadPolicy } from "../src/core/policy/document.ts";
import { connect, type Loose } from "./helpers/in_memory.ts";

for (const [profile, allowed] of [["strict", false], ["open", true]] as const) {
  Deno.test(`close_binary's snapshot_path under the ${profile} policy with --allow-file-writes: ${allowed ? "written" : "refused"}`, async () => {
    const dir = Deno.realPathSync(await Deno.makeTempDir());
    const policy = compilePolicy(loadPolicy(profile));
    const { client, close } = await connect({
      ...gateOptions(policy),
      roots: ["/usr/bin"],
      allowFileWrites: true,
    });
    try {
      const opened = await client.callTool({
        name: "open_binary",
        arguments: { path: "/usr/bin/true" },
      });
      assert.ok(!opened.isError, JSON.stringify(opened).slice(0, 400));
      const path = `${dir}/snapshot.json`;
      const closed = await client.callTool({
        name: "close_binary",
        arguments: { snapshot_path: path },
      }) as Loose;
      const written = await Deno.stat(path).then(() => true, () => false);
      assert.equal(written, allowed, JSON.stringify(closed).slice(0, 400));
      assert.equal(Boolean(closed.isError), !allowed);
      if (!allowed) assert.equal(closed.structuredContent.error.code, "access_denied");
    } finally {
      await close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
