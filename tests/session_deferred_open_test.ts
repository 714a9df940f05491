/**
 * Opening a binary reads only what identifies it; the symbol and function
 * tables, imports, exports and call-target discovery wait for the first use.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { ToolFailure } from "../src/core/errors.ts";
import { isElf } from "../src/apps/formats/elf/parse.ts";
import { PARTIAL_READ_MIN_BYTES, readTargetFile } from "../src/apps/paths.ts";
import { identifyingRanges } from "../src/apps/session/target.ts";
import { elfImage } from "../src/apps/formats/elf/image.ts";
import { deferredElfImage } from "../src/apps/formats/elf/image.ts";
import { DEFERRED_FIELDS, isDeferred } from "../src/apps/formats/deferred_image.ts";
import type { BinaryImage } from "../src/apps/formats/binary_image.ts";
import { nativeProvider } from "../src/apps/providers/native.ts";
import { BinarySession } from "../src/apps/session/binary_session.ts";
import { discoverStartupCallees } from "../src/apps/analysis/discovery.ts";
import { connect, hasProgram, type Loose, ok, run } from "./helpers/in_memory.ts";

const LS = "/usr/bin/ls";
const HAS_CC = hasProgram("cc") && hasProgram("objcopy");

/** Every field of an image but its bytes, as plain data. */
function fields(image: BinaryImage): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(image).sort()) {
    if (key === "bytes") continue;
    const value = (image as unknown as Record<string, unknown>)[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * `elfImage()` of `bytes`, prepared as the first use prepares a document:
 * the procedures the loader's startup code reaches added (ls is stripped, so
 * crt's two helpers have no symbol and no FDE).
 */
async function preparedElf(bytes: Uint8Array, name: string): Promise<BinaryImage> {
  const image = elfImage(bytes, name);
  await discoverStartupCallees(image);
  return image;
}

/** Files that exercise the reader: ls, its copy with a damaged section table, a 64-byte stub. */
function samples(): [string, Uint8Array][] {
  const ls = Deno.readFileSync(LS);
  const badShoff = ls.slice();
  new DataView(badShoff.buffer).setBigUint64(0x28, 0xffff_ffffn, true);
  const tiny = ls.slice(0, 64);
  new DataView(tiny.buffer).setUint16(0x3c, 0xffff, true);
  const brokenSymtab = ls.slice();
  // The section header table's last entries get an absurd sh_size: reading them warns.
  const view = new DataView(brokenSymtab.buffer);
  const shoff = Number(view.getBigUint64(0x28, true));
  const shnum = view.getUint16(0x3c, true);
  for (let i = 1; i < shnum; i++) {
    view.setBigUint64(shoff + i * 64 + 0x20, 0x7fff_ffffn, true);
  }
  return [["ls", ls], ["bad-shoff", badShoff], ["absurd-count", tiny], [
    "huge-sizes",
    brokenSymtab,
  ]];
}

Deno.test("deferredElfImage() reads nothing deferred, then equals elfImage() field for field", () => {
  for (const [name, bytes] of samples()) {
    const eager = elfImage(bytes, name);
    const deferred = deferredElfImage(bytes, name);
    assert.ok(isDeferred(deferred), `${name}: deferred until used`);
    for (const key of Object.keys(fields(eager))) {
      if ((DEFERRED_FIELDS as readonly string[]).includes(key) || key === "warnings") continue;
      assert.deepEqual(
        (deferred as unknown as Record<string, unknown>)[key],
        (eager as unknown as Record<string, unknown>)[key],
        `${name}: ${key} is known at open`,
      );
    }
    assert.ok(isDeferred(deferred), `${name}: reading identifying fields reads nothing more`);
    // The first use of a deferred field reads the rest, warnings included.
    assert.equal(deferred.functions.length, eager.functions.length, name);
    assert.ok(!isDeferred(deferred), name);
    assert.deepEqual(fields(deferred), fields(eager), name);
    assert.equal(deferred.bytes, bytes);
  }
});

Deno.test("deferredElfImage() refuses at once what elfImage() refuses", () => {
  const ls = Deno.readFileSync(LS);
  for (
    const bytes of [ls.slice(0, 40), new Uint8Array(), Uint8Array.of(0x7f, 0x45, 0x4c, 0x46, 9)]
  ) {
    let expected: unknown;
    assert.throws(() => elfImage(bytes, "x"), (error) => (expected = error, true));
    assert.throws(
      () => deferredElfImage(bytes, "x"),
      (error: Error) => error.message === (expected as Error).message,
    );
  }
});

Deno.test("BinarySession.open() leaves an ELF document unread until prepared()", async () => {
  const session = new BinarySession([{ path: "/usr/bin", realPath: "/usr/bin" }], [
    nativeProvider(),
  ]);
  const { target } = await session.open(LS);
  const image = target.documents[0]!;
  assert.ok(isDeferred(image), "the open read the symbol tables");
  assert.equal(session.isPrepared(image), false);
  const scope = await session.prepared("list_procedures", undefined);
  assert.equal(scope.image, image);
  assert.ok(!isDeferred(image));
  assert.ok(session.isPrepared(image));
  assert.deepEqual(fields(image), fields(await preparedElf(await Deno.readFile(LS), "ls")));
  // Reopening the same file keeps the state: the document stays read.
  const again = await session.open(LS);
  assert.equal(again.action, "reopened");
});

Deno.test("open_binary reports counts as null until the first use, which computes them", async () => {
  const { client, close } = await connect({ roots: ["/usr/bin"] });
  try {
    const opened = await ok(client, "open_binary", { path: LS });
    assert.equal(opened.result.target.procedure_count, null);
    assert.equal(opened.result.target.import_count, null);
    assert.equal(opened.result.target.export_count, null);
    const eager = await preparedElf(await Deno.readFile(LS), "ls");
    assert.equal(opened.result.target.build_id, eager.buildId);
    const page = await ok(client, "list_procedures", { limit: 1 });
    assert.equal(page.result.total, eager.functions.length);
    const status = (await ok(client, "binary_session")).result.target;
    assert.equal(status.procedure_count, eager.functions.length);
    assert.equal(status.import_count, eager.imports.length);
    assert.equal(status.export_count, eager.exports.length);
    const reopened = await ok(client, "open_binary", { path: LS });
    assert.equal(reopened.result.action, "reopened");
    assert.equal(reopened.result.target.procedure_count, eager.functions.length);
  } finally {
    await close();
  }
});

Deno.test({
  name: "call-target discovery runs on the first list_procedures, not at open, with progress then",
  ignore: !HAS_CC,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "casefile-deferred-" });
    try {
      await Deno.writeTextFile(
        `${dir}/prog.c`,
        [
          "static int __attribute__((noinline)) twice(int x) { return x * 2; }",
          "static int __attribute__((noinline)) add(int x) { return twice(x) + 1; }",
          "int main(int argc, char **argv) { (void)argv; return add(argc) + twice(argc); }",
          "",
        ].join("\n"),
      );
      const path = `${dir}/prog`;
      await run("cc", [
        "-O1",
        "-s",
        "-fno-asynchronous-unwind-tables",
        "-o",
        path,
        `${dir}/prog.c`,
      ]);
      // No .eh_frame left: the document has no function table, so it needs the sweep.
      await run("objcopy", ["-R", ".eh_frame", "-R", ".eh_frame_hdr", path]);
      const { client, close } = await connect({ roots: [dir] });
      try {
        const messages = async (name: string, args: Record<string, unknown>) => {
          const seen: string[] = [];
          const result = await client.callTool({ name, arguments: args }, undefined, {
            onprogress: (event) => seen.push(event.message ?? ""),
          });
          return { seen, result: (result.structuredContent as Loose).result };
        };
        const opened = await messages("open_binary", { path });
        assert.equal(opened.result.target.procedure_count, null);
        assert.ok(!opened.seen.some((m) => /swept|reading the symbol/.test(m)), opened.seen.join());
        const page = await messages("list_procedures", { limit: 100 });
        assert.ok(
          page.seen.some((m) => /^swept \d+ of \d+ executable bytes$/.test(m)),
          page.seen.join(),
        );
        assert.ok(page.seen.some((m) => /^reading the symbol tables/.test(m)), page.seen.join());
        // The sweep found main's direct callees, which no table names.
        assert.ok(page.result.total >= 3, JSON.stringify(page.result));
        const second = await messages("list_procedures", { limit: 1 });
        assert.deepEqual(second.seen, [], "the sweep runs once");
        assert.equal(second.result.total, page.result.total);
      } finally {
        await close();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** A copy of ls padded with zeros past PARTIAL_READ_MIN_BYTES, in a fresh root. */
async function paddedLs(): Promise<{ root: string; path: string; bytes: Uint8Array }> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "casefile-partial-" }));
  const ls = await Deno.readFile(LS);
  const bytes = new Uint8Array(ls.length + PARTIAL_READ_MIN_BYTES);
  bytes.set(ls);
  // Non-zero bytes past ls, so that an unread stretch shows as zeros.
  bytes.fill(0xa5, ls.length);
  await Deno.writeFile(`${root}/big-ls`, bytes);
  return { root, path: `${root}/big-ls`, bytes };
}

Deno.test("a large ELF file is read by its identifying ranges at open, and whole on first use", async () => {
  const { root, path, bytes } = await paddedLs();
  try {
    const session = new BinarySession([{ path: root, realPath: root }], [nativeProvider()]);
    const { target } = await session.open(path);
    assert.equal(target.sha256, createHash("sha256").update(bytes).digest("hex"));
    assert.ok(target.unread !== null && !target.unread.done);
    const image = target.documents[0]!;
    const tail = image.bytes.subarray(bytes.length - 4096);
    assert.ok(tail.every((b) => b === 0), "the open did not read the padding");
    // Nothing parses the missing bytes before they are read.
    assert.throws(() => image.functions, /not read in full yet/);
    const eager = elfImage(bytes, "big-ls");
    assert.deepEqual(
      { sections: image.sections, buildId: image.buildId, warnings: [...image.warnings] },
      { sections: eager.sections, buildId: eager.buildId, warnings: eager.warnings },
    );
    await session.prepared("list_procedures", undefined);
    assert.deepEqual(image.bytes, bytes);
    await discoverStartupCallees(eager);
    assert.deepEqual(fields(image), fields(eager));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the first use refuses a large file that changed since it was opened", async () => {
  const { root, path, bytes } = await paddedLs();
  try {
    const session = new BinarySession([{ path: root, realPath: root }], [nativeProvider()]);
    await session.open(path);
    bytes[bytes.length - 1] = 0;
    await Deno.writeFile(path, bytes);
    await assert.rejects(
      session.prepared("list_procedures", undefined),
      (error: ToolFailure) => {
        assert.equal(error.code, "artifact_integrity_mismatch");
        assert.match(error.message, /changed since it was opened/);
        return true;
      },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("identifying ranges give the same identity as the whole file, for large system libraries", async () => {
  const directory = "/usr/lib/x86_64-linux-gnu";
  const large: string[] = [];
  try {
    for (const entry of Deno.readDirSync(directory)) {
      if (!entry.isFile || !entry.name.includes(".so")) continue;
      const path = `${directory}/${entry.name}`;
      if (Deno.statSync(path).size >= PARTIAL_READ_MIN_BYTES) large.push(path);
    }
  } catch {
    // No such directory: the padded ls below still runs.
  }
  const roots = [{ path: "/usr/lib", realPath: "/usr/lib" }];
  for (const path of large.sort().slice(0, 6)) {
    const file = await readTargetFile(path, roots, { identifyingRanges });
    const whole = await Deno.readFile(path);
    if (!isElf(whole)) continue;
    assert.ok(file.readRest, `${path} was read by ranges`);
    const partial = deferredElfImage(file.bytes, "x");
    const eager = elfImage(whole, "x");
    assert.deepEqual(
      { sections: partial.sections, buildId: partial.buildId, warnings: partial.warnings },
      { sections: eager.sections, buildId: eager.buildId, warnings: eager.warnings },
      path,
    );
    assert.equal(file.sha256, createHash("sha256").update(whole).digest("hex"), path);
  }
});
