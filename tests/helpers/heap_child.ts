/**
 * Runs a heap-measuring child script under given V8 flags with read
 * access, and returns the JSON object its last line of output holds.
 *
 * @module
 */

import assert from "node:assert/strict";

/** Runs `child` with `args` under `--v8-flags=<v8Flags>`; its last stdout line, parsed. */
export async function heapChild<T>(child: string, v8Flags: string, args: string[]): Promise<T> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", `--v8-flags=${v8Flags}`, "--allow-read", child, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.ok(output.success, `the child failed: ${stderr.slice(0, 2000)}`);
  return JSON.parse(new TextDecoder().decode(output.stdout).trim().split("\n").at(-1)!) as T;
}
