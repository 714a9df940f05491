/**
 * Damaged binaries of every format, opened and analysed through a real MCP
 * client: each answer is a result or an expected tool error (never an
 * unexpected `execution_failure`), and the session stays usable.
 */

import assert from "node:assert/strict";
import { call, connect, type Loose } from "./helpers/in_memory.ts";
import { npmFixture } from "./helpers/npm_fixtures.ts";
import { mulberry32 } from "./helpers/random.ts";

const SEED = 0xfa57f00d;

async function fixtures(): Promise<[string, Uint8Array][]> {
  const found: [string, Uint8Array][] = [["elf", await Deno.readFile("/usr/bin/ls")]];
  const remote: [string, string, string][] = [
    ["pe", "7zip-bin@5.2.0", "win/x64/7za.exe"],
    ["mach-o", "7zip-bin@5.2.0", "mac/arm64/7za"],
    ["universal", "fsevents@2.3.3", "fsevents.node"],
    ["wasm", "gecko-profiler-demangle@0.4.0", "index_bg.wasm"],
  ];
  for (const [label, spec, file] of remote) {
    const path = await npmFixture(spec, file);
    if (path) found.push([label, await Deno.readFile(path)]);
  }
  return found;
}

/** A damaged copy: a truncation or a few flipped bytes in the first 64 KiB. */
function damage(bytes: Uint8Array, random: () => number): Uint8Array {
  if (random() < 0.5) return bytes.slice(0, Math.floor(random() * bytes.length));
  const copy = bytes.slice();
  const span = Math.min(copy.length, 65536);
  for (let i = 0, n = 1 + Math.floor(random() * 8); i < n; i++) {
    copy[Math.floor(random() * span)] = Math.floor(random() * 256);
  }
  return copy;
}

Deno.test("damaged ELF, PE, Mach-O and WebAssembly files give results or clear errors through the server", async () => {
  console.log(`server fuzz seed 0x${SEED.toString(16)}`);
  const random = mulberry32(SEED);
  const root = Deno.realPathSync(await Deno.makeTempDir({ prefix: "casefile-fuzz-" }));
  const { client, close } = await connect({ roots: [root] });
  const unexpected: string[] = [];
  const check = (label: string, outcome: { isError: boolean; structured: Loose }): boolean => {
    if (outcome.isError && outcome.structured.error.code === "execution_failure") {
      unexpected.push(`${label}: ${outcome.structured.error.message}`);
    }
    return !outcome.isError;
  };
  try {
    let opened = 0;
    let refused = 0;
    for (const [label, bytes] of await fixtures()) {
      for (let i = 0; i < 30; i++) {
        const path = `${root}/${label}-${i}`;
        await Deno.writeFile(path, damage(bytes, random));
        const open = await call(client, "open_binary", { path });
        if (!check(`${label}#${i} open_binary`, open)) {
          refused++;
          assert.match(open.structured.error.message, /\S/);
          continue;
        }
        opened++;
        const page = await call(client, "list_procedures", { limit: 20 });
        check(`${label}#${i} list_procedures`, page);
        check(`${label}#${i} binary_overview`, await call(client, "binary_overview"));
        check(
          `${label}#${i} search_strings`,
          await call(client, "search_strings", { query: "a", limit: 5 }),
        );
        const first = page.isError ? undefined : page.structured.result.items[0]?.address;
        if (first) {
          check(
            `${label}#${i} analyze_function`,
            await call(client, "analyze_function", {
              procedure: first,
              include_callers: false,
              max_instructions: 200,
            }),
          );
          check(
            `${label}#${i} resolve_containing_procedure`,
            await call(client, "resolve_containing_procedure", { address: first }),
          );
        }
        await Deno.remove(path);
      }
    }
    console.log(
      `server fuzz: ${opened} damaged files opened (partial), ${refused} refused with a clear error`,
    );
    assert.deepEqual(unexpected, []);
    const status = await call(client, "binary_session");
    assert.equal(status.isError, false);
  } finally {
    await close();
    await Deno.remove(root, { recursive: true });
  }
});
