/**
 * Benchmarks of the foundation's hot paths, each with its peer measured in
 * the same run: completion (in process), procedure completion and a full
 * list_procedures walk on the largest shared library (against `nm -D`), and
 * the stdio cold start (against a minimal SDK server).
 */

import { complete } from "../src/core/completion.ts";
import type { WorkbenchModule } from "../src/core/workbench.ts";
import { appsWorkbench } from "../src/apps/workbench.ts";
import { compareTo, measure, reportMedian } from "./helpers/bench_stats.ts";
import { connect, hasProgram, ok } from "./helpers/in_memory.ts";
import { largestSharedLibrary } from "./helpers/largest_library.ts";

const CANDIDATES = Array.from(
  { length: 10_000 },
  (_, i) => `candidate-${String(i).padStart(5, "0")}`,
);

const tenThousand: WorkbenchModule = {
  name: "bench",
  permissionNeeds: () => [],
  create: () => ({
    name: "bench",
    tools: [],
    prompts: [{
      name: "bench_prompt",
      title: "Bench",
      description: "A prompt whose argument completes from 10,000 candidates.",
      objective: "Measure completion.",
      arguments: [{ name: "item", description: "An item.", required: false, completion: "items" }],
      steps: [{ tools: ["binary_session"], instruction: "Read the session." }],
    }],
    completionFamilies: { items: { source: () => CANDIDATES } },
    resourceTemplates: [],
  }),
};

const inProcess = await connect({ workbenches: [appsWorkbench, tenThousand] });

Deno.bench({
  name: "complete() engine over 10,000 candidates (prefix 'candidate-0')",
  group: "completion",
  fn: async (b) => {
    await measure("engine", b, () => complete("candidate-0", () => CANDIDATES, { arguments: {} }));
  },
});

Deno.bench({
  name: "completion/complete request over 10,000 candidates (in-memory SDK client)",
  group: "completion",
  baseline: true,
  fn: async (b) => {
    await measure("request", b, () =>
      inProcess.client.complete({
        ref: { type: "ref/prompt", name: "bench_prompt" },
        argument: { name: "item", value: "candidate-0" },
      }));
  },
});
reportMedian("completion/complete, 10,000-candidate family, in process", "request", 2);
reportMedian("complete() engine alone, 10,000 candidates", "engine", null);

const library = largestSharedLibrary();
const HAS_NM = hasProgram("nm");
if (!library) {
  console.log("skip: no shared library with functions found for the library benchmarks");
}
if (!HAS_NM) console.log("skip: nm is not installed; the nm peer benchmark is not run");

const onLibrary = library ? await connect({ roots: ["/"] }) : null;
if (library && onLibrary) {
  const opened = await ok(onLibrary.client, "open_binary", { path: library });
  const procedures = (await ok(onLibrary.client, "list_procedures", { limit: 1 })).result.total;
  console.log(
    `library benchmarks use ${library} (${opened.result.target.size} bytes, ${procedures} procedures)`,
  );

  Deno.bench({
    name: `procedure completion on ${library.split("/").pop()} (prefix '0x1')`,
    group: "procedure-completion",
    n: 20,
    warmup: 2,
    fn: async (b) => {
      await measure("procedure-completion", b, () =>
        onLibrary.client.complete({
          ref: { type: "ref/prompt", name: "investigate_feature" },
          argument: { name: "procedure", value: "0x1" },
        }));
    },
  });
  reportMedian(`procedure completion on ${library}`, "procedure-completion", null);

  const walk = async (): Promise<number> => {
    let offset: number | null = 0;
    let count = 0;
    while (offset !== null) {
      const page = await ok(onLibrary.client, "list_procedures", { offset, limit: 500 });
      count += page.result.items.length;
      offset = page.result.next_offset;
    }
    return count;
  };

  Deno.bench({
    name: "list_procedures full walk, pages of 500 (target already open)",
    group: "walk",
    n: 10,
    warmup: 1,
    fn: async (b) => {
      await measure("walk", b, walk);
    },
  });
  Deno.bench({
    name: "open_binary + list_procedures full walk (fresh session each time)",
    group: "walk",
    n: 10,
    warmup: 1,
    fn: async (b) => {
      const fresh = await connect({ roots: ["/"] });
      try {
        await measure("open-walk", b, async () => {
          await ok(fresh.client, "open_binary", { path: library });
          let offset: number | null = 0;
          while (offset !== null) {
            const page = await ok(fresh.client, "list_procedures", { offset, limit: 500 });
            offset = page.result.next_offset;
          }
        });
      } finally {
        await fresh.close();
      }
    },
  });
  if (HAS_NM) {
    Deno.bench({
      name: "peer: nm -D --defined-only on the same file",
      group: "walk",
      baseline: true,
      n: 10,
      warmup: 1,
      fn: async (b) => {
        await measure("nm", b, () =>
          new Deno.Command("nm", {
            args: ["-D", "--defined-only", library],
            stdout: "piped",
            stderr: "null",
          }).output());
      },
    });
    compareTo("list_procedures walk vs nm -D --defined-only", "walk", "nm", 2);
    compareTo("open_binary + walk vs nm -D --defined-only", "open-walk", "nm", null);
  }
}

const MOD = new URL("../mod.ts", import.meta.url).pathname;
const MINIMAL = new URL("./fixtures/minimal_sdk_server.ts", import.meta.url).pathname;
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "bench", version: "1" },
  },
}) + "\n";

/** Spawns a stdio server and resolves when its initialize result arrives. */
async function coldStart(args: string[]): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(INITIALIZE));
  const reader = child.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  if (!text.includes('"serverInfo"')) throw new Error(`no initialize result: ${text}`);
  await writer.close();
  reader.releaseLock();
  await child.stdout.cancel();
  await child.status;
}

Deno.bench({
  name: "cold start: spawn casefile (stdio) to initialize result",
  group: "cold-start",
  n: 15,
  warmup: 2,
  fn: async (b) => {
    await measure("casefile-start", b, () => coldStart([MOD, "--root", "/usr/bin"]));
  },
});
Deno.bench({
  name: "peer: cold start of a minimal SDK server (stdio)",
  group: "cold-start",
  baseline: true,
  n: 15,
  warmup: 2,
  fn: async (b) => {
    await measure("minimal-start", b, () => coldStart([MINIMAL]));
  },
});
compareTo("stdio cold start vs minimal SDK server", "casefile-start", "minimal-start", 1.5);

globalThis.addEventListener("unload", () => {
  void inProcess.close();
  void onLibrary?.close();
});
