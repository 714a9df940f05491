import assert from "node:assert/strict";
import { isNormalisedPath, logicalPathSchema } from "../src/apps/artifacts/model.ts";

/** The rule spelled out segment by segment, as REA states it. */
function reference(path: string): boolean {
  return path === "." ||
    (path !== "" && !path.startsWith("/") && !path.includes("\\") && !path.includes("\0") &&
      path.split("/").every((segment) => segment !== "" && segment !== "." && segment !== ".."));
}

Deno.test("isNormalisedPath() agrees with the segment-by-segment rule on every short path", () => {
  const alphabet = ["a", ".", "/", "\\", "\0", "é", "\n", " "];
  let checked = 0;
  const visit = (prefix: string, depth: number): void => {
    assert.equal(isNormalisedPath(prefix), reference(prefix), JSON.stringify(prefix));
    checked++;
    if (depth === 0) return;
    for (const letter of alphabet) visit(prefix + letter, depth - 1);
  };
  visit("", 6);
  assert.ok(checked > 250_000, `${checked} paths`);
  for (const path of ["usr/lib/x.so", "a/.hidden", "a/..b", "...", "a/b/", "/a", "a//b", "./a"]) {
    assert.equal(isNormalisedPath(path), reference(path), path);
  }
});

Deno.test("logicalPathSchema refuses what is not a normalised relative path", () => {
  assert.ok(logicalPathSchema.safeParse("usr/lib/libc.so.6").success);
  assert.ok(logicalPathSchema.safeParse(".").success);
  for (const bad of ["", "/etc", "a/../b", "a\\b", "a/./b", "a/"]) {
    assert.equal(logicalPathSchema.safeParse(bad).success, false, bad);
  }
});
