/**
 * parseTraces() records each file call once, with its path already resolved:
 * the non-*at calls (open, creat, unlink, rename both ends, mkdir) against the
 * process's working directory followed through chdir, the *at calls against
 * their decorated directory fd, and execve and undecorated paths as written.
 */

import assert from "node:assert/strict";
import { parseTraces } from "../src/apps/capture/strace.ts";

const START = 1_000_000;
const at = (ms: number): string =>
  `${Math.floor((START + ms) / 1000)}.${String(((START + ms) % 1000) * 1000).padStart(6, "0")}`;

const MAIN = [
  `${at(1)} chdir("sub") = 0`,
  `${at(2)} open("a", O_RDONLY) = 3`,
  `${at(3)} creat("b", 0644) = 4`,
  `${at(4)} rename("b", "../c") = 0`,
  `${at(5)} mkdir("d", 0755) = 0`,
  `${at(6)} unlink("d/./e") = -1 ENOENT (No such file or directory)`,
  `${at(7)} unlinkat(AT_FDCWD</elsewhere>, "f", 0) = 0`,
  `${at(8)} openat(AT_FDCWD, "g", O_RDONLY) = -1 ENOENT (No such file or directory)`,
  `${at(9)} execve("./run", ["./run"], 0x7ffd /* 1 var */) = -1 ENOENT (No such file or directory)`,
  `${at(10)} open("/abs/h", O_RDONLY) = 5`,
].join("\n");

Deno.test("parseTraces() records relative paths resolved against the working directory, once each", () => {
  const summary = parseTraces(new Map([[7, MAIN]]), START, { workingDirectory: "/w" });
  assert.deepEqual(
    summary.files.map((f) => [f.operation, f.path, f.to]),
    [
      ["open", "/w/sub/a", null],
      ["create", "/w/sub/b", null],
      ["rename", "/w/sub/b", "/w/c"],
      ["mkdir", "/w/sub/d", null],
      ["unlink", "/w/sub/d/e", null],
      ["unlink", "/elsewhere/f", null],
      ["open", "g", null],
      ["open", "/abs/h", null],
    ],
  );
  assert.deepEqual(summary.executions.map((e) => e.path), ["./run"]);
  assert.equal(summary.unparsed, 0);
});

Deno.test("parseTraces() leaves a relative path relative when the working directory is not known", () => {
  // Another process changed directory: which one is this process's ancestor is not known.
  const other = `${at(1)} chdir("/x") = 0`;
  const own = `${at(2)} mkdir("d", 0755) = 0`;
  const summary = parseTraces(new Map([[7, other], [8, own]]), START, { workingDirectory: "/w" });
  assert.deepEqual(summary.files.map((f) => f.path), ["d"]);
  const alone = parseTraces(new Map([[8, own]]), START);
  assert.deepEqual(alone.files.map((f) => f.path), ["d"], "no working directory given");
});
