import assert from "node:assert/strict";
import { MOD_TS, serverArgs, startTaskFlags } from "./client_bench/harness.ts";

const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
const startLine: string[] = config.tasks.start.trim().split(/\s+/);

Deno.test("serverArgs() starts the server with every flag of deno task start but its read grant", () => {
  const flags = startLine.slice(startLine.indexOf("run") + 1, startLine.indexOf("mod.ts"));
  assert.ok(flags.length > 2, startLine.join(" "));
  const args = serverArgs({ roots: ["/tmp/a"], args: ["--demo"] });
  assert.equal(args[0], "run");
  for (const flag of flags) {
    if (flag.startsWith("--allow-read=")) continue;
    assert.ok(args.includes(flag), `${flag} missing from ${args.join(" ")}`);
  }
  const read = args.filter((arg) => arg.startsWith("--allow-read="));
  assert.equal(read.length, 1);
  assert.ok(read[0]!.split("=")[1]!.split(",").includes("/tmp/a"));
  // Flags before the module, the root and the server's own arguments after it.
  assert.deepStrictEqual(args.slice(args.indexOf(MOD_TS)), [MOD_TS, "--root", "/tmp/a", "--demo"]);
  assert.deepStrictEqual(startTaskFlags(), flags.filter((f) => !f.startsWith("--allow-read=")));
});

Deno.test("serverArgs() leaves out the V8 flag when asked for V8's defaults", () => {
  const args = serverArgs({ defaultV8: true });
  assert.ok(!args.some((arg) => arg.startsWith("--v8-flags=")), args.join(" "));
  assert.ok(serverArgs({}).some((arg) => arg.startsWith("--v8-flags=")));
});
