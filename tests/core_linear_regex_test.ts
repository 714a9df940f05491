/**
 * Caller-supplied patterns run in linear time: the patterns that froze the
 * server with backtracking answer in milliseconds, and other clients are
 * answered meanwhile.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { compileLinearRegex, PatternError } from "../src/core/linear_regex.ts";
import { call, connect, ok } from "./helpers/in_memory.ts";

const RUN = "a".repeat(40);

Deno.test("compileLinearRegex() answers ^(a|a)*$ and (a|aa)+$ on long runs in milliseconds", () => {
  for (const pattern of ["^(a|a)*$", "(a|aa)+$", "^(a+)+$", "(x+x+)+y"]) {
    const regex = compileLinearRegex(pattern);
    for (const input of [RUN + "!", "a".repeat(5_000) + "!", "x".repeat(5_000)]) {
      const start = performance.now();
      regex.test(input);
      const took = performance.now() - start;
      assert.ok(took < 250, `${pattern} on ${input.length} chars took ${took.toFixed(1)} ms`);
    }
  }
  assert.equal(compileLinearRegex("^(a|a)*$").test(RUN), true);
  assert.equal(compileLinearRegex("^(a|a)*$").test(RUN + "!"), false);
  assert.equal(compileLinearRegex("(a|aa)+$").test(RUN + "!"), false);
});

Deno.test("compileLinearRegex() refuses backreferences and lookaround with a clear message", () => {
  for (
    const [pattern, what] of [
      ["(a)\\1", /backreferences/],
      ["(?<x>a)\\k<x>", /named backreferences/],
      ["a(?=b)", /lookahead/],
      ["a(?!b)", /lookahead/],
      ["(?<=a)b", /lookbehind/],
      ["(?<!a)b", /lookbehind/],
      ["[unclosed", /invalid \(RE2 syntax\)/],
      ["a".repeat(1_001), /at most 1000/],
    ] as const
  ) {
    assert.throws(() => compileLinearRegex(pattern), (error: unknown) => {
      assert.ok(error instanceof PatternError, String(error));
      assert.match(error.message, what);
      return true;
    });
  }
  // An escaped backslash followed by a digit is a literal, not a backreference.
  assert.equal(compileLinearRegex("\\\\1").test("x\\1"), true);
});

Deno.test("compileLinearRegex() translates flags, named groups and JavaScript replacements", () => {
  assert.equal(compileLinearRegex("abc").test("xABCx"), false);
  assert.equal(compileLinearRegex("abc", { ignoreCase: true }).test("xABCx"), true);
  assert.equal(compileLinearRegex("a.b").test("a\nb"), false);
  assert.equal(compileLinearRegex("a.b", { dotAll: true }).test("a\nb"), true);
  assert.equal(compileLinearRegex("^b$").test("a\nb"), false);
  assert.equal(compileLinearRegex("^b$", { multiline: true }).test("a\nb"), true);
  assert.equal(compileLinearRegex("(?<n>\\d+)").test("pid 42"), true);
  assert.equal(
    compileLinearRegex("pid (\\d+)").replaceAll("pid 4242 and pid 7", "pid <$1>"),
    "pid <4242> and pid <7>",
  );
  assert.equal(compileLinearRegex("\\d+").replaceAll("a1b22", "#"), "a#b#");
});

Deno.test("search_strings with ^(a|a)*$ and (a|aa)+$ answers quickly while another client is answered meanwhile", async () => {
  const root = await Deno.makeTempDir();
  const target = join(root, "prog");
  const elf = await Deno.readFile("/bin/true");
  const tail = new TextEncoder().encode(`\0${RUN}\0${RUN}!\0`);
  await Deno.writeFile(target, new Uint8Array([...elf, ...tail]));
  const first = await connect({ roots: [root] });
  const second = await connect({ roots: [root] });
  try {
    await ok(first.client, "open_binary", { path: target });
    await ok(second.client, "open_binary", { path: target });
    for (const query of ["^(a|a)*$", "(a|aa)+$"]) {
      const start = performance.now();
      let pingAt = -1;
      const search = call(first.client, "search_strings", { query, mode: "regex" });
      const ping = second.client.ping().then(() => {
        pingAt = performance.now() - start;
      });
      const result = await search;
      const took = performance.now() - start;
      await ping;
      assert.equal(result.isError, false, JSON.stringify(result.structured));
      const text = JSON.stringify(result.structured);
      assert.ok(text.includes(RUN), `${query} found the run of a's`);
      console.log(
        `${query}: ${took.toFixed(1)} ms; the other client answered at ${pingAt.toFixed(1)} ms`,
      );
      assert.ok(took < 2_000, `${query} took ${took.toFixed(0)} ms`);
      assert.ok(pingAt >= 0 && pingAt < 2_000);
    }
  } finally {
    await first.close();
    await second.close();
    await Deno.remove(root, { recursive: true });
  }
});
