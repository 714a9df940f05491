import assert from "node:assert/strict";
import { dirname } from "node:path";
import { hasProgram, type Loose, run, withClient } from "./helpers/in_memory.ts";
import { firstFile } from "./helpers/system_files.ts";

const FILE = firstFile([
  "/usr/lib/x86_64-linux-gnu/libc.so.6",
  "/usr/lib/aarch64-linux-gnu/libc.so.6",
]);
const ready = FILE !== undefined && hasProgram("strings");
if (!ready) console.log("skip apps_search_strings_encoding_test: needs libc.so.6 and GNU strings");

/** The lines `strings -a` (plus `extra`) prints for FILE. */
async function peer(extra: string[]): Promise<string[]> {
  const lines = (await run("strings", ["-a", ...extra, FILE!])).split("\n");
  lines.pop();
  return lines;
}

async function search(client: Loose, args: Record<string, unknown>): Promise<Loose> {
  const answer = await client.callTool({ name: "search_strings", arguments: args });
  assert.ok(!answer.isError, JSON.stringify(answer.content));
  return answer.structuredContent.result;
}

Deno.test({
  name:
    "search_strings scans and counts only the encoding asked for, as strings -a and -el find it",
  ignore: !ready,
  fn: async () => {
    const ascii = await peer([]);
    const utf16 = await peer(["-el"]);
    const query = "error";
    const matching = (lines: string[]) =>
      lines.filter((line) => line.toLowerCase().includes(query)).length;
    await withClient({ roots: [dirname(FILE!)] }, async (client) => {
      await client.callTool({ name: "open_binary", arguments: { path: FILE } });
      // Asked in this order so that neither encoding's scan is there yet when it is asked for.
      const onlyUtf16 = await search(client, { query, encoding: "utf-16le", limit: 1 });
      assert.equal(onlyUtf16.scanned_strings, utf16.length);
      assert.equal(onlyUtf16.total, matching(utf16));
      const onlyAscii = await search(client, { query, encoding: "ascii", limit: 100 });
      assert.equal(onlyAscii.scanned_strings, ascii.length);
      assert.equal(onlyAscii.total, matching(ascii));
      assert.ok(onlyAscii.items.every((item: Loose) => item.encoding === "ascii"));
      const both = await search(client, { query, limit: 100 });
      assert.equal(both.scanned_strings, ascii.length + utf16.length);
      assert.equal(both.total, onlyAscii.total + onlyUtf16.total);
      // After both were scanned, each encoding is served from the joined table, unchanged.
      assert.deepStrictEqual(
        await search(client, { query, encoding: "ascii", limit: 100 }),
        onlyAscii,
      );
      assert.deepStrictEqual(
        await search(client, { query, encoding: "utf-16le", limit: 1 }),
        onlyUtf16,
      );
      // Both encodings list ASCII first: the ASCII hits lead, in the same order.
      assert.deepStrictEqual(
        both.items.slice(0, onlyAscii.items.length).map((item: Loose) => item.file_offset),
        onlyAscii.items.map((item: Loose) => item.file_offset),
      );
    });
  },
});
