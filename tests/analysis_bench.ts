/**
 * Benchmarks of the static-analysis paths, each beside its peer in the same
 * run: procedure listing on the largest shared library (against `nm -D`),
 * string search (against `strings -a`), function discovery on a large
 * stripped executable (the deno binary), analyze_function latency, and peak
 * memory against the file size.
 */

import { compareTo, measure, reportMedian } from "./helpers/bench_stats.ts";
import { connect, ok } from "./helpers/in_memory.ts";
import { hasProgram } from "./helpers/programs.ts";
import { largestSharedLibrary } from "./helpers/largest_library.ts";

const library = largestSharedLibrary();
const DENO = Deno.realPathSync(Deno.execPath());
const HAS_NM = hasProgram("nm");
const HAS_STRINGS = hasProgram("strings");
if (!library) console.log("skip: no shared library with functions found");

if (library) {
  const size = Deno.statSync(library).size;
  const session = await connect({ roots: ["/"] });
  await ok(session.client, "open_binary", { path: library });

  Deno.bench({
    name: "list_procedures: every page of 500 (library open)",
    group: "listing",
    n: 10,
    warmup: 1,
    fn: async (b) => {
      await measure("listing", b, async () => {
        let offset: number | null = 0;
        while (offset !== null) {
          offset = (await ok(session.client, "list_procedures", { offset, limit: 500 })).result
            .next_offset;
        }
      });
    },
  });
  if (HAS_NM) {
    Deno.bench({
      name: "peer: nm -D --defined-only",
      group: "listing",
      baseline: true,
      n: 10,
      warmup: 1,
      fn: async (b) => {
        await measure(
          "nm",
          b,
          () =>
            new Deno.Command("nm", {
              args: ["-D", "--defined-only", library],
              stdout: "piped",
              stderr: "null",
            }).output(),
        );
      },
    });
    compareTo(`procedure listing on ${library} vs nm -D --defined-only`, "listing", "nm", 2);
  }

  Deno.bench({
    name: "search_strings: full scan and literal search in a fresh session",
    group: "strings",
    n: 5,
    warmup: 1,
    fn: async (b) => {
      const fresh = await connect({ roots: ["/"] });
      await ok(fresh.client, "open_binary", { path: library });
      await measure(
        "strings",
        b,
        () => ok(fresh.client, "search_strings", { query: "error", limit: 10 }),
      );
      await fresh.close();
    },
  });
  if (HAS_STRINGS) {
    Deno.bench({
      name: "peer: strings -a (ASCII) plus strings -a -el (UTF-16LE)",
      group: "strings",
      baseline: true,
      n: 5,
      warmup: 1,
      fn: async (b) => {
        await measure("strings-peer", b, async () => {
          await new Deno.Command("strings", { args: ["-a", library], stdout: "piped" }).output();
          await new Deno.Command("strings", { args: ["-a", "-el", library], stdout: "piped" })
            .output();
        });
      },
    });
    compareTo(
      `search_strings (scan + search) on ${library} vs strings -a (both encodings)`,
      "strings",
      "strings-peer",
      2,
    );
  }

  const names = (await ok(session.client, "list_procedures", { offset: 1000, limit: 50 })).result
    .items
    .map((i: { address: string }) => i.address);
  let next = 0;
  Deno.bench({
    name: "analyze_function: 50 different procedures, callers off",
    group: "dossier",
    n: 50,
    warmup: 3,
    fn: async (b) => {
      const procedure = names[next++ % names.length];
      await measure(
        "dossier",
        b,
        () => ok(session.client, "analyze_function", { procedure, include_callers: false }),
      );
    },
  });
  reportMedian(`analyze_function median latency on ${library}`, "dossier", null);

  // Peak memory in a separate process doing one full pass over the file: under the
  // V8 flags `deno task start` runs the server with, and under V8's defaults for comparison.
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  const serverV8Flags = (config.tasks.start as string).split(/\s+/)
    .filter((arg) => arg.startsWith("--v8-flags="));
  const probe = async (v8Flags: string[]) => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        ...v8Flags,
        "--allow-read",
        "--allow-env",
        new URL("./fixtures/memory_probe.ts", import.meta.url).pathname,
        library,
      ],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    return JSON.parse(new TextDecoder().decode(output.stdout).trim().split("\n").pop() ?? "{}");
  };
  const memory = await probe(serverV8Flags);
  const defaults = await probe([]);
  globalThis.addEventListener("unload", () => {
    console.log(
      `peak RSS growth for one full pass over ${library} (open, overview, every procedure page, 20 dossiers, reference index): ${
        (memory.growth / 1048576).toFixed(0)
      } MiB for a ${(size / 1048576).toFixed(0)} MiB file = ${
        (memory.growth / size).toFixed(2)
      }× the file size (target ≤ 2×) under deno task start's ${
        serverV8Flags.join(" ") || "(no V8 flags)"
      }, ${(defaults.growth / size).toFixed(2)}× under V8's defaults; the pass took ${
        memory.seconds?.toFixed(1)
      } s (${defaults.seconds?.toFixed(1)} s under the defaults); reference scan ${
        JSON.stringify(memory.reference_scan)
      }`,
    );
    void session.close();
  });
}

Deno.bench({
  name: "function discovery on the stripped deno executable (open + procedure count)",
  group: "discovery",
  n: 3,
  warmup: 0,
  fn: async (b) => {
    const session = await connect({ roots: ["/"] });
    let count = 0;
    let sources: Record<string, number> = {};
    await measure("discovery", b, async () => {
      await ok(session.client, "open_binary", { path: DENO });
      const overview = await ok(session.client, "binary_overview");
      count = overview.result.procedure_count;
      sources = overview.result.procedures_by_source;
    });
    console.log(`deno binary: ${count} procedures, by source ${JSON.stringify(sources)}`);
    await session.close();
  },
});
reportMedian(`function discovery on ${DENO} (open_binary + binary_overview)`, "discovery", null);
