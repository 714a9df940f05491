/**
 * Strings stored without a NUL, one after another, as rustc, Go and Swift
 * store their literals (a length travels with the pointer): code that points
 * at such a string, or into the run it shares with its neighbours, references
 * it. Built with the C compiler at test time (a char array exactly as long as
 * its text keeps no NUL); objdump's `lea` targets and `strings -a` are the oracle.
 */

import assert from "node:assert/strict";
import { type Loose, ok, withTempRoot } from "./helpers/in_memory.ts";
import { hasProgram, run } from "./helpers/programs.ts";

const TOOLS = ["cc", "objdump", "strings", "nm"].every(hasProgram);

// Three messages packed without NULs and closed by a byte that is neither printable nor NUL.
const SOURCE = `
typedef unsigned long size_t;
extern long write(int, const void *, size_t);
__attribute__((used)) const char packed[47] =
  "ALPHA_MESSAGE_ONE" "BETA_MESSAGE_TWO" "GAMMA_MESSAGE\\x01";
__attribute__((noinline)) void say_alpha(void) { write(1, packed, 17); }
__attribute__((noinline)) void say_beta(void) { write(1, packed + 17, 16); }
__attribute__((noinline)) void say_gamma(void) { write(1, packed + 33, 13); }
int main(void) { say_alpha(); say_beta(); say_gamma(); return 0; }
`;

const RUN = "ALPHA_MESSAGE_ONEBETA_MESSAGE_TWOGAMMA_MESSAGE";

/** The addresses each procedure's `lea …(%rip)` lines point at, per objdump. */
async function leaTargets(path: string): Promise<Map<string, string[]>> {
  const targets = new Map<string, string[]>();
  let procedure = "";
  for (const line of (await run("objdump", ["-d", "--no-show-raw-insn", path])).split("\n")) {
    const heading = /^[0-9a-f]+ <([^>]+)>:$/.exec(line);
    if (heading) procedure = heading[1]!;
    const lea = /\slea\s+0x[0-9a-f]+\(%rip\),%\w+\s+# ([0-9a-f]+)/.exec(line);
    if (lea) {
      const list = targets.get(procedure) ?? [];
      list.push(`0x${BigInt(`0x${lea[1]}`).toString(16)}`);
      targets.set(procedure, list);
    }
  }
  return targets;
}

Deno.test({
  name:
    "analyze_function and trace_feature follow code into strings stored without a NUL (the packed literals of Rust, Go, Swift)",
  ignore: !TOOLS || Deno.build.arch !== "x86_64",
  fn: async () => {
    await withTempRoot("casefile-packed-", async ({ client, dir }) => {
      await Deno.writeTextFile(`${dir}/packed.c`, SOURCE);
      const path = `${dir}/packed`;
      await run("cc", ["-O1", "-fPIE", "-pie", "-o", path, `${dir}/packed.c`]);
      // The oracle: strings -a sees one run; objdump, where each function points.
      const found = (await run("strings", ["-a", path])).split("\n");
      assert.ok(found.includes(RUN), "strings -a does not list the packed run");
      const packed = /^([0-9a-f]+) \S+ packed$/m.exec(await run("nm", [path]));
      assert.ok(packed, "nm lists no packed");
      const base = BigInt(`0x${packed[1]}`);
      const leas = await leaTargets(path);
      const beta = `0x${(base + 17n).toString(16)}`;
      assert.deepEqual(leas.get("say_alpha"), [`0x${base.toString(16)}`]);
      assert.deepEqual(leas.get("say_beta"), [beta]);

      await ok(client, "open_binary", { path });
      const dossier = await ok(client, "analyze_function", { procedure: "say_beta" });
      assert.deepEqual(dossier.result.referenced_strings.items, [{
        address: beta,
        value: "BETA_MESSAGE_TWOGAMMA_MESSAGE",
        encoding: "ascii",
        terminated: false,
        from: dossier.result.outgoing_references.items
          .filter((r: Loose) => r.to === beta).map((r: Loose) => r.from),
      }]);
      assert.equal(dossier.result.outgoing_references.items[0].target, "string");
      const record = JSON.parse(
        ((await client.readResource({ uri: dossier.evidence_uri })).contents[0] as Loose).text,
      );
      assert.ok(
        record.limitations.some((l: string) => l.includes("have no NUL after them")),
        JSON.stringify(record.limitations),
      );

      // The seed lies inside the run: say_beta points at it, say_alpha at the run's start
      // (its length is not in the bytes), say_gamma past the seed.
      const trace = await ok(client, "trace_feature", { query: "beta_message" });
      assert.deepEqual(trace.result.string_hits.map((h: Loose) => h.value), [RUN]);
      assert.deepEqual(
        trace.result.procedures.map((p: Loose) => p.name).sort(),
        ["say_alpha", "say_beta"],
      );
      const viaBeta = trace.result.procedures.find((p: Loose) => p.name === "say_beta").via;
      assert.ok(viaBeta.every((v: string) => v.endsWith(`→ ${beta}`)), JSON.stringify(viaBeta));
      // A reference inside the run before the seed is counted, and said to be unsure.
      const gamma = await ok(client, "trace_feature", { query: "GAMMA_MESSAGE" });
      assert.deepEqual(
        gamma.result.procedures.map((p: Loose) => p.name).sort(),
        ["say_alpha", "say_beta", "say_gamma"],
      );
      const gammaRecord = JSON.parse(
        ((await client.readResource({ uri: gamma.evidence_uri })).contents[0] as Loose).text,
      );
      assert.ok(
        gammaRecord.limitations.some((l: string) =>
          l.startsWith("1 reference(s) point inside a string hit, before the seed")
        ),
        JSON.stringify(gammaRecord.limitations),
      );
    });
  },
});

// Format strings end with a line end before their NUL, as printf's usually do.
const LINES_SOURCE = `
extern int printf(const char *, ...);
__attribute__((noinline)) void report(int a, int b) {
  printf("report: first=%d second=%d\\n", a, b);
  printf("two lines\\r\\nof text\\n");
}
int main(void) { report(1, 2); return 0; }
`;

Deno.test({
  name:
    "analyze_function gives a C string that ends with a line end whole, up to its NUL, as the file's bytes hold it",
  ignore: !TOOLS || Deno.build.arch !== "x86_64",
  fn: async () => {
    await withTempRoot("casefile-lines-", async ({ client, dir }) => {
      await Deno.writeTextFile(`${dir}/lines.c`, LINES_SOURCE);
      const path = `${dir}/lines`;
      await run("cc", ["-O1", "-fPIE", "-pie", "-o", path, `${dir}/lines.c`]);
      // The oracle: each string objdump's lea in report points at, read from the file to its NUL.
      const leas = (await leaTargets(path)).get("report") ?? [];
      assert.equal(leas.length, 2, JSON.stringify(leas));
      const headers = await run("objdump", ["-h", path]);
      const rodata = /\.rodata\s+[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)/.exec(headers)!;
      const [vma, offset] = [BigInt(`0x${rodata[1]}`), Number(`0x${rodata[2]}`)];
      const bytes = await Deno.readFile(path);
      const expected = leas.map((address) => {
        const at = offset + Number(BigInt(address) - vma);
        const end = bytes.indexOf(0, at);
        return [address, new TextDecoder().decode(bytes.subarray(at, end))];
      }).sort();
      // (The compiler may turn the second printf into puts, dropping its last line end.)
      assert.ok(expected.every(([, v]) => v!.includes("\n")), JSON.stringify(expected));
      assert.ok(expected.some(([, v]) => v!.endsWith("%d\n")), JSON.stringify(expected));

      await ok(client, "open_binary", { path });
      const dossier = await ok(client, "analyze_function", { procedure: "report" });
      const strings = dossier.result.referenced_strings.items;
      assert.deepEqual(strings.map((s: Loose) => [s.address, s.value]).sort(), expected);
      // Only a string without its NUL says so (terminated: false).
      assert.ok(strings.every((s: Loose) => s.terminated !== false), JSON.stringify(strings));
    });
  },
});
