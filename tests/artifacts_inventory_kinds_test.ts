/**
 * inventory_artifact on a real npm package holding a universal Mach-O
 * bundle (fsevents' `fsevents.node`): the node's kind follows the slices'
 * file type as llvm-objdump prints it, so a bundle is a loadable library and
 * not an executable, although its first slice lies beyond the sniffed head.
 */

import assert from "node:assert/strict";
import { hasProgram, type Loose, run, withTempRoot } from "./helpers/in_memory.ts";
import { inventoryTarballCopy } from "./helpers/inventory.ts";
import { npmFixture, npmTarball } from "./helpers/npm_fixtures.ts";

/** The inventory kind a Mach-O file type means: executables run, dylibs and bundles load. */
const KIND_OF_FILETYPE: Record<string, string> = {
  EXECUTE: "executable",
  DYLIB: "dynamic-library",
  BUNDLE: "dynamic-library",
  OBJECT: "object",
};

Deno.test({
  name:
    "inventory_artifact calls a universal Mach-O bundle a dynamic library, as llvm-objdump's headers say",
  ignore: !hasProgram("llvm-objdump-14") || !hasProgram("npm") || !hasProgram("tar"),
  fn: async () => {
    const tarball = await npmTarball("fsevents@2.3.3");
    const unpacked = await npmFixture("fsevents@2.3.3", "fsevents.node");
    assert.ok(tarball && unpacked, "npm pack fetched the package");
    const headers = await run("llvm-objdump-14", [
      "--macho",
      "--private-header",
      "--arch=all",
      unpacked,
    ]);
    const filetypes = [...headers.matchAll(/^MH_MAGIC\S*\s+\S+\s+\S+\s+\S+\s+(\w+)/gm)].map((m) =>
      m[1]!
    );
    assert.ok(filetypes.length >= 2, "a universal file has several slices");
    const expected = new Set(filetypes.map((t) => KIND_OF_FILETYPE[t] ?? "unknown"));
    assert.equal(expected.size, 1);
    await withTempRoot("casefile-test-", async ({ client, dir }) => {
      const { stream, inventory } = await inventoryTarballCopy({ client, dir }, tarball);
      const occurrence = inventory.occurrences.find((o: Loose) =>
        o.logical_path === `${stream}/package/fsevents.node`
      );
      assert.equal(occurrence?.content_kind, "mach-o-universal");
      const node = inventory.nodes.find((n: Loose) => n.artifact_id === occurrence.artifact_id);
      assert.equal(node.kind, [...expected][0]);
      assert.equal(node.executable, node.kind === "executable");
    });
  },
});
