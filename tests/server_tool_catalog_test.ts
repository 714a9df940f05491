/**
 * The generated tool catalogs: each built-in workbench commits what its tools
 * list (`src/<workbench>/tool_catalog.ts`, written by `deno task docs`), and
 * the server answers a `tools/list` that arrives before the workbenches are
 * built from them. The catalogs must equal the live tools, whatever the
 * workbench settings, and a listing before the build must equal the one
 * after it under every `--toolsets` and policy choice.
 */

import assert from "node:assert/strict";
import type { CreateServerOptions } from "../src/server.ts";
import { builtinWorkbenches } from "../src/workbenches.ts";
import { appsWorkbenchWith } from "../src/apps/workbench.ts";
import { cloudWorkbenchWith } from "../src/cloud/workbench.ts";
import { privacyWorkbenchWith } from "../src/privacy/workbench.ts";
import { compilePolicy, gateOptions } from "../src/core/policy/compile.ts";
import { loadPolicy } from "../src/core/policy/document.ts";
import {
  catalogEntry,
  checkToolCatalog,
  lazyToolCatalog,
  toolCatalogText,
} from "../src/core/tool_listing.ts";
import type { Workbench, WorkbenchModule } from "../src/core/workbench.ts";
import { toolCatalogFile, toolCatalogs } from "./generate_docs.ts";
import { connect, type Connected } from "./helpers/in_memory.ts";
import { notebookWorkbench } from "./fixtures/fake_workbench.ts";

const WORKBENCHES = ["apps", "cloud", "privacy"];
/** The committed catalog texts, by workbench. */
const COMMITTED = new Map(
  await Promise.all(
    WORKBENCHES.map(async (name) =>
      [name, await Deno.readTextFile(toolCatalogFile(name))] as const
    ),
  ),
);
const STALE = "is stale: run `deno task docs` and commit it";

Deno.test("each built-in workbench's committed tool catalog equals what its live tools list", async () => {
  const live = await toolCatalogs();
  assert.deepEqual([...live.keys()], [...COMMITTED.keys()], "one catalog per built-in workbench");
  for (const [workbench, text] of live) {
    assert.ok(checkToolCatalog(JSON.parse(text)).length > 0, `${workbench} lists tools`);
    assert.equal(COMMITTED.get(workbench), text, `src/${workbench}/tool_catalog.json ${STALE}`);
  }
});

Deno.test("the built-in tools list the same whatever the workbench settings and flags", async () => {
  const dir = await Deno.makeTempDir({ prefix: "casefile-catalog-" });
  const policy = compilePolicy(loadPolicy("strict"), { env: () => "test-vault-key" });
  const { casefile, close } = await connect({
    allowFileWrites: true,
    allowProcessLaunch: true,
    workbenches: [
      appsWorkbenchWith({
        capturePolicy: {
          executables: ["/usr/bin/true"],
          roots: [dir],
          environment: ["LANG"],
          allowHostNetwork: true,
          requireHumanConfirmation: true,
        },
        ceilings: { max_entries: 7, max_total_bytes: 4096, max_depth: 2 },
      }),
      cloudWorkbenchWith({ demo: true, outputDir: dir, maxDatasetBytes: 12345 }),
      privacyWorkbenchWith({ policy }),
    ],
  });
  try {
    for (const module of builtinWorkbenches()) {
      const declared = new Set((module.toolsets ?? []).map((toolset) => toolset.name));
      const text = toolCatalogText(
        casefile.catalog.list().filter((tool) => declared.has(tool.toolset ?? ""))
          .map((tool) => catalogEntry(tool, tool.toolset ?? module.name)),
      );
      assert.equal(text, COMMITTED.get(module.name), `${module.name} under non-default settings`);
    }
  } finally {
    await close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** The modules, each built only once `gate` resolves (their catalogs kept). */
function gated(modules: readonly WorkbenchModule[], gate: Promise<void>): WorkbenchModule[] {
  return modules.map((module) => ({
    ...module,
    create: async (services): Promise<Workbench> => {
      await gate;
      return await module.create(services);
    },
  }));
}

/** A server over `modules` and a connected SDK client (the handshake done, nothing listed). */
function session(options: CreateServerOptions, modules: WorkbenchModule[]): Promise<Connected> {
  return connect({ logLevel: "emergency", ...options, workbenches: modules, settle: false });
}

/** What the server offers under a start-up choice: the options and the modules' policy. */
interface Choice {
  name: string;
  options?: CreateServerOptions;
  policy?: string | Record<string, unknown>;
  /** A tool the choice must hide. */
  hides?: string;
}

const CHOICES: Choice[] = [
  { name: "defaults" },
  { name: "--toolsets static", options: { toolsets: ["static"] }, hides: "open_binary" },
  { name: "--toolsets cloud,session", options: { toolsets: ["cloud", "session"] } },
  { name: "--read-only", options: { readOnly: true }, hides: "extract_artifact" },
  { name: "--policy strict (schemas withheld)", policy: "strict" },
  { name: "--policy standard", policy: "standard", hides: "reveal_token" },
  { name: "--policy soc-analyst", policy: "soc-analyst", hides: "export_report" },
  {
    name: "a policy that hides denied tools",
    policy: { name: "custom", hide_denied: true, deny_tools: ["search_*", "graph_*"] },
    hides: "search_strings",
  },
  {
    name: "a policy that denies without hiding",
    policy: { name: "custom", hide_denied: false, deny_tools: ["search_*"] },
  },
];

for (const choice of CHOICES) {
  Deno.test(`tools/list before the build equals tools/list after it: ${choice.name}`, async () => {
    const { promise: gate, resolve: open } = Promise.withResolvers<void>();
    const policy = choice.policy === undefined
      ? undefined
      : compilePolicy(loadPolicy(choice.policy), { env: () => "test-vault-key" });
    const { casefile, client, close } = await session(
      { ...choice.options, ...(policy ? gateOptions(policy) : {}) },
      gated(builtinWorkbenches(policy ? { policy } : {}), gate),
    );
    try {
      const before = await client.listTools();
      assert.equal(casefile.catalog.list().length, 0, "answered before any workbench was built");
      open();
      await casefile.ready();
      const after = await client.listTools();
      assert.ok(after.tools.length > 0);
      assert.equal(JSON.stringify(before), JSON.stringify(after));
      if (choice.hides) {
        assert.ok(!after.tools.some((tool) => tool.name === choice.hides), choice.hides);
      }
      if (choice.policy === "strict") {
        assert.ok(after.tools.every((tool) => tool.outputSchema === undefined), "withheld");
      }
    } finally {
      open();
      await close();
    }
  });
}

/** Asserts `pending` is still unsettled 30 ms on (`why` says what it waits for); returns it. */
async function stillWaiting<T>(pending: Promise<T>, why: string): Promise<{ done: Promise<T> }> {
  let settled = false;
  const done = pending.finally(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(settled, false, why);
  return { done };
}

/**
 * Lists the tools of a server of `modules` (whose build waits for `open`),
 * checks the listing waited for the build and names what was built, and
 * returns the names.
 */
async function listedOnceBuilt(
  modules: WorkbenchModule[],
  open: () => void,
): Promise<string[]> {
  const { casefile, client, close } = await session({}, modules);
  try {
    const listing = await stillWaiting(client.listTools(), "tools/list waits for the build");
    open();
    const names = (await listing.done).tools.map((tool) => tool.name);
    assert.deepEqual(names, casefile.catalog.list().map((t) => t.name));
    return names;
  } finally {
    open();
    await close();
  }
}

Deno.test("a tools/call sent before the build waits for it, then runs", async () => {
  const { promise: gate, resolve: open } = Promise.withResolvers<void>();
  const { casefile, client, close } = await session({}, gated(builtinWorkbenches(), gate));
  try {
    await client.listTools();
    const call = await stillWaiting(
      client.callTool({ name: "workspace_status", arguments: {} }),
      "the call waits for the build",
    );
    assert.equal(casefile.catalog.list().length, 0);
    open();
    const result = await call.done;
    assert.equal(result.isError, undefined, JSON.stringify(result).slice(0, 300));
    assert.ok(result.structuredContent, "answered by the built workbench");
  } finally {
    open();
    await close();
  }
});

Deno.test("with a workbench that has no catalog, tools/list waits for the build as before", async () => {
  const { promise: gate, resolve: open } = Promise.withResolvers<void>();
  const notebook = notebookWorkbench();
  const modules = gated([...builtinWorkbenches(), { ...notebook, deferred: true }], gate);
  assert.equal(modules.at(-1)!.toolCatalog, undefined);
  const names = await listedOnceBuilt(modules, open);
  assert.ok(names.includes("get_note"));
});

Deno.test("checkToolCatalog() refuses what is not a list of catalog entries", () => {
  assert.throws(() => checkToolCatalog({}), /JSON array/);
  assert.throws(() => checkToolCatalog([{ toolset: "x" }]), /Entry 0/);
});

Deno.test("lazyToolCatalog() imports once, shares the entries, and retries a failed import", async () => {
  let imports = 0;
  const entries = [{ toolset: "t", effects: {}, listed: { name: "a" } }];
  const catalog = lazyToolCatalog(() => {
    imports++;
    return imports === 1
      ? Promise.reject(new Error("not readable"))
      : Promise.resolve({ default: entries });
  });
  await assert.rejects(catalog(), /not readable/);
  assert.equal(await catalog(), await catalog());
  assert.equal(imports, 2);
});

Deno.test("a tools/list before the build waits for it when a catalog cannot be loaded", async () => {
  const { promise: gate, resolve: open } = Promise.withResolvers<void>();
  const modules = gated(builtinWorkbenches(), gate).map((module, index) =>
    index === 1
      ? { ...module, toolCatalog: () => Promise.reject(new Error("no read access")) }
      : module
  );
  await listedOnceBuilt(modules, open);
});

/** The built-in modules, counting the calls of their `create`. */
function counted(): { modules: WorkbenchModule[]; calls: () => number } {
  let calls = 0;
  const modules = builtinWorkbenches().map((module) => ({
    ...module,
    create: (services: Parameters<WorkbenchModule["create"]>[0]) => {
      calls++;
      return module.create(services);
    },
  }));
  return { modules, calls: () => calls };
}

/** Polls until `done` holds (at most 10 s). */
async function eventually(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(done(), what);
}

Deno.test("after a tools/list answered from the catalogs, the workbenches are built without another request", async () => {
  const { modules, calls } = counted();
  const { casefile, client, close } = await session({}, modules);
  try {
    await client.listTools();
    await eventually(() => calls() === 3 && casefile.catalog.list().length > 0, "built");
  } finally {
    await close();
  }
});

Deno.test("without any tools/list after the handshake, the workbenches are built after a short grace", async () => {
  const { modules, calls } = counted();
  const { casefile, close } = await session({}, modules);
  try {
    await eventually(() => calls() === 3 && casefile.catalog.list().length > 0, "built");
  } finally {
    await close();
  }
});

Deno.test("a server closed right after the handshake builds nothing and leaves no timer", async () => {
  const { modules, calls } = counted();
  const { close } = await session({}, modules);
  await close();
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(calls(), 0);
});
