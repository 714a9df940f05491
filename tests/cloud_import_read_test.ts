/**
 * Reading importer inputs never blocks on a special file and keeps its size limit.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { readTextFile } from "../src/cloud/importers/read.ts";
import { LoadError } from "../src/cloud/model/errors.ts";
import { hasProgram } from "./helpers/programs.ts";

const MKFIFO = await hasProgram("mkfifo");

Deno.test({
  name: "readTextFile() refuses a FIFO at once instead of waiting for a writer",
  ignore: !MKFIFO,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    const fifo = join(dir, "input.json");
    await new Deno.Command("mkfifo", { args: [fifo] }).output();
    try {
      const start = performance.now();
      await assert.rejects(readTextFile(fifo), (error: unknown) => {
        assert.ok(error instanceof LoadError);
        assert.match(error.message, /not a regular file/);
        return true;
      });
      assert.ok(performance.now() - start < 2_000);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("readTextFile() reads a regular file whole and refuses one over the limit", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "a.json");
  await Deno.writeTextFile(path, '{"ok": "é"}');
  try {
    assert.equal(await readTextFile(path), '{"ok": "é"}');
    await assert.rejects(readTextFile(path, 4), /larger than/);
    await assert.rejects(readTextFile(join(dir, "missing.json")), /does not exist/);
    await assert.rejects(readTextFile(dir), /not a regular file/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
