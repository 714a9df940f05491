import assert from "node:assert/strict";
import {
  scanStringRuns,
  scanStrings,
  stringEncoding,
  stringValue,
} from "../src/apps/analysis/strings.ts";
import { firstFile } from "./helpers/system_files.ts";

const FILES = ["/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/aarch64-linux-gnu/libc.so.6"];
const FILE = firstFile(FILES);
let hasStrings = false;
try {
  hasStrings = (await new Deno.Command("strings", { args: ["--version"], stdout: "null" }).output())
    .success;
} catch {
  hasStrings = false;
}
if (!FILE || !hasStrings) {
  console.log("skip analysis_strings_test: needs libc.so.6 and GNU strings");
}

Deno.test({
  name: "stringValue() gives back every ASCII string `strings -a` prints, in file order",
  ignore: !FILE || !hasStrings,
  fn: async () => {
    const bytes = Deno.readFileSync(FILE!);
    const table = await scanStrings(bytes);
    const ours: string[] = [];
    for (let i = 0; i < table.count; i++) {
      if (stringEncoding(bytes, table, i) === 0) ours.push(stringValue(bytes, table, i, 1 << 20));
    }
    const output = await new Deno.Command("strings", { args: ["-a", FILE!], stdout: "piped" })
      .output();
    const theirs = new TextDecoder("latin1").decode(output.stdout).split("\n");
    theirs.pop();
    assert.equal(ours.length, theirs.length);
    assert.deepStrictEqual(ours, theirs);
  },
});

Deno.test("stringValue() cuts a long ASCII string at max and decodes a UTF-16LE one", async () => {
  const long = "x".repeat(20_000);
  const bytes = new Uint8Array([
    0,
    ...new TextEncoder().encode(long),
    0,
    0xff,
    ...[..."wide text"].flatMap((c) => [c.charCodeAt(0), 0]),
    0xff,
  ]);
  const table = await scanStrings(bytes);
  assert.equal(table.count, 2);
  assert.equal(stringValue(bytes, table, 0, 50_000), long);
  assert.equal(stringValue(bytes, table, 0, 10), "x".repeat(10));
  assert.equal(stringValue(bytes, table, 1), "wide text");
});

/** `strings -a` (with `-el` for UTF-16LE) on FILE, one entry a line. */
async function peerStrings(extra: string[]): Promise<string[]> {
  const output = await new Deno.Command("strings", {
    args: ["-a", ...extra, FILE!],
    stdout: "piped",
  })
    .output();
  const lines = new TextDecoder("latin1").decode(output.stdout).split("\n");
  lines.pop();
  return lines;
}

Deno.test({
  name: "scanStringRuns() scans one encoding: ASCII as `strings -a`, UTF-16LE as `strings -a -el`",
  ignore: !FILE || !hasStrings,
  fn: async () => {
    const bytes = Deno.readFileSync(FILE!);
    const values = (table: { count: number; offsets: Uint32Array }, encoding: 0 | 1) => {
      const out: string[] = [];
      for (let i = 0; i < table.count; i++) {
        assert.equal(stringEncoding(bytes, table, i), encoding, `string ${i}`);
        out.push(stringValue(bytes, table, i, 1 << 20));
      }
      return out;
    };
    const ascii = await scanStringRuns(bytes, "ascii");
    assert.deepStrictEqual(values(ascii, 0), await peerStrings([]));
    const utf16 = await scanStringRuns(bytes, "utf-16le");
    const theirs = await peerStrings(["-el"]);
    assert.ok(theirs.length > 0, "the peer found UTF-16LE strings to compare");
    // strings -el reads both alignments in one pass, in file order; ours lists even, then odd.
    assert.deepStrictEqual(values(utf16, 1).sort(), theirs.sort());
    // The table of both encodings is the two, ASCII first.
    const both = await scanStrings(bytes);
    assert.deepStrictEqual(
      [...both.offsets],
      [...ascii.offsets, ...utf16.offsets],
    );
  },
});
